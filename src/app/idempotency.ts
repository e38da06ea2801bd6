import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../core/clock.js';
import { DocwrightError, validationFailed } from '../core/errors.js';
import { jsonText } from '../core/json-text.js';
import type { Database } from '../db/database.js';
import type { Executor } from '../db/transaction.js';
import { principalProjectId } from './authenticate.js';

const RETENTION_MS = 24 * 3_600_000;
/** An in-flight record this old belongs to a process that died mid-request. */
const ABANDONED_MS = 5 * 60_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { projectId: string; key: string; keptInTransaction?: boolean } | null;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return jsonText(value) ?? 'null';
}

/**
 * Stripe-style `Idempotency-Key` for POSTs: the first request with a key runs and its
 * response is kept for 24 hours; a repeat with the same body gets that response again,
 * a repeat with another body gets 422, and one arriving while the first still runs gets
 * 409. Requests that fail validation or the rate limit, or fail with a 5xx, keep nothing,
 * so they can be retried with the same key.
 *
 * A handler whose work is one transaction stores the response in it (`keepWithin`): the
 * key is then `done` exactly when the work committed, even if the connection drops before
 * the answer, and a retry replays instead of doing the work twice.
 */
export class IdempotencyStore {
  private lastSweep = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** preHandler: returns the reply when it answered (a replay or a conflict). */
  async begin(request: FastifyRequest, reply: FastifyReply, operation: string): Promise<FastifyReply | undefined> {
    request.idempotency = null;
    const header = request.headers['idempotency-key'];
    const projectId = principalProjectId(request);
    if (header === undefined || projectId === undefined) return undefined;
    const key = Array.isArray(header) ? (header[0] ?? '') : header;
    if (!KEY_PATTERN.test(key)) {
      throw validationFailed('The Idempotency-Key header is not valid.', [{ path: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }]);
    }
    const hash = createHash('sha256')
      .update(`${operation}\n${request.url.split('?')[0]}\n${canonical(request.body)}`)
      .digest('hex');
    const { db } = this.database;
    const now = this.clock.now();
    await this.sweep(now);
    for (let tries = 0; tries < 2; tries += 1) {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({
          project_id: projectId,
          key,
          operation,
          request_hash: hash,
          state: 'in_flight',
          response_status: null,
          response_body: null,
          created_at: now,
          expires_at: now + RETENTION_MS,
        })
        .onConflict((conflict) => conflict.columns(['project_id', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) {
        request.idempotency = { projectId, key };
        return undefined;
      }
      const existing = await db.selectFrom('idempotency_keys').selectAll().where('project_id', '=', projectId).where('key', '=', key).executeTakeFirst();
      if (!existing) continue;
      const abandoned = existing.state === 'in_flight' && existing.created_at <= now - ABANDONED_MS;
      if (existing.expires_at <= now || abandoned) {
        await db
          .deleteFrom('idempotency_keys')
          .where('project_id', '=', projectId)
          .where('key', '=', key)
          .where('created_at', '=', existing.created_at)
          .execute();
        continue;
      }
      if (existing.request_hash !== hash) {
        throw new DocwrightError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body or endpoint.', { status: 422 });
      }
      if (existing.state === 'in_flight') {
        throw new DocwrightError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
          status: 409,
        });
      }
      return reply
        .status(existing.response_status ?? 200)
        .header('Idempotent-Replayed', 'true')
        .type('application/json; charset=utf-8')
        .serializer((payload: unknown) => payload as string)
        .send(existing.response_body ?? '');
    }
    throw new DocwrightError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
      status: 409,
    });
  }

  /**
   * The write that stores this request's response (`status`, and the JSON of what the
   * handler will send) inside the transaction of its work; undefined without a key.
   */
  keepWithin(request: FastifyRequest, status: number): ((executor: Executor, response: unknown) => Promise<void>) | undefined {
    const record = request.idempotency;
    if (!record) return undefined;
    return async (executor, response) => {
      await executor
        .updateTable('idempotency_keys')
        .set({ state: 'done', response_status: status, response_body: JSON.stringify(response) })
        .where('project_id', '=', record.projectId)
        .where('key', '=', record.key)
        .where('state', '=', 'in_flight')
        .execute();
      // Committed if the handler goes on to answer 2xx (else the transaction failed).
      record.keptInTransaction = true;
    };
  }

  /** onSend: keep the outcome, or forget the key when the request did not really run. */
  async finish(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
    const record = request.idempotency;
    if (!record) return;
    request.idempotency = null;
    const status = reply.statusCode;
    if (record.keptInTransaction === true && status < 300) return;
    const where = this.database.db
      .updateTable('idempotency_keys')
      .where('project_id', '=', record.projectId)
      .where('key', '=', record.key)
      .where('state', '=', 'in_flight');
    if (status >= 500 || status === 429 || typeof payload !== 'string') {
      await this.database.db
        .deleteFrom('idempotency_keys')
        .where('project_id', '=', record.projectId)
        .where('key', '=', record.key)
        .where('state', '=', 'in_flight')
        .execute();
      return;
    }
    await where.set({ state: 'done', response_status: status, response_body: payload }).execute();
  }

  /** At most once a minute per process, drop expired keys so the table stays small. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    await this.database.db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
  }
}
