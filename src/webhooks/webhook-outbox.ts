import type { Clock } from '../core/clock.js';
import { conflict, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Database } from '../db/database.js';
import type { WebhookMessagesTable } from '../db/schema.js';
import { lockKey, writeTransaction, type Executor } from '../db/transaction.js';
import { eligibleMessages, type ProjectChoice } from './webhook-fairness.js';
import type { WebhookResponse } from './webhook-http.js';

/**
 * The waits after the 1st, 2nd, … failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
 * Eight attempts over 27 h 35 min; then the message is `failed` (a manual redelivery
 * starts the schedule again). docs/webhooks.md, "Retries".
 */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** Attempts kept per message in the log (the oldest go first). */
export const MAX_ATTEMPTS_LOGGED = 50;

export type MessageRow = WebhookMessagesTable;

/** One message of an endpoint of the project; 404 for any other. */
export async function findMessage(executor: Executor, projectId: string, endpointId: string, messageId: string): Promise<MessageRow> {
  const row = await executor
    .selectFrom('webhook_messages')
    .selectAll()
    .where('id', '=', messageId)
    .where('endpoint_id', '=', endpointId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  if (!row) throw notFound(`No message "${messageId}" for this webhook endpoint.`);
  return row;
}

/** A claimed message: `attempt` is its number and fences the result (see `finish`). */
export interface ClaimedMessage {
  row: MessageRow;
  attempt: number;
  manual: boolean;
}

/**
 * The outbox as the delivery workers see it. A claim works like the job queue's: one
 * worker at a time holds a message for a lease (longer than a delivery can take), a
 * killed worker's lease runs out and the next claim sends the same message again, with
 * the same `webhook-id`. The result is recorded only by the claim that made it.
 */
export class WebhookOutbox {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * The next message to send, or null. Fair (docs/webhooks.md, "Delivery order and
   * fairness"): one delivery per endpoint at a time, at most PROJECT_CONCURRENCY per
   * project, projects with nothing under way first, then the earliest due. Claims are
   * taken one at a time over all processes (BEGIN IMMEDIATE on SQLite, an advisory lock
   * on PostgreSQL), and each reads the claims committed before it: two workers cannot
   * both see an endpoint idle and send to it at once.
   */
  async claim(workerId: string, leaseMs: number): Promise<ClaimedMessage | null> {
    const { database } = this;
    return writeTransaction(database, async (executor) => {
      await lockKey(database, executor, 'webhook-claims');
      const now = this.clock.now();
      const candidate = (projects: ProjectChoice) => {
        let query = eligibleMessages(executor, now, projects)
          .select('id')
          .where('next_attempt_at', '<=', now)
          .orderBy('next_attempt_at', 'asc')
          .orderBy('created_at', 'asc')
          .limit(1);
        if (database.dialect === 'postgres') query = query.forUpdate().skipLocked();
        return query.executeTakeFirst();
      };
      const found = (await candidate('idle')) ?? (await candidate('below-cap'));
      if (!found) return null;
      const row = await executor
        .updateTable('webhook_messages')
        .set((eb) => ({ locked_by: workerId, locked_until: now + leaseMs, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', found.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row, attempt: row.attempts, manual: row.manual === 1 };
    });
  }

  /**
   * Logs the attempt and moves the message on: delivered, retried later, or failed for
   * good. False when the claim had passed to another worker meanwhile (its attempt is
   * logged, the message is left to the new owner).
   */
  async finish(claim: ClaimedMessage, workerId: string, startedAt: number, result: WebhookResponse): Promise<boolean> {
    return writeTransaction(this.database, async (executor) => {
      const now = this.clock.now();
      await executor
        .insertInto('webhook_attempts')
        .values({
          id: newId(),
          message_id: claim.row.id,
          endpoint_id: claim.row.endpoint_id,
          attempt: claim.attempt,
          trigger: claim.manual ? 'manual' : 'scheduled',
          started_at: startedAt,
          duration_ms: Math.max(0, now - startedAt),
          outcome: result.ok ? 'succeeded' : 'failed',
          response_status: result.status,
          response_body: result.body,
          error_code: result.errorCode,
          error_message: result.errorMessage,
        })
        .execute();
      await executor
        .deleteFrom('webhook_attempts')
        .where('message_id', '=', claim.row.id)
        .where('attempt', '<=', claim.attempt - MAX_ATTEMPTS_LOGGED)
        .execute();
      const failures = result.ok ? claim.row.failures : claim.row.failures + 1;
      const exhausted = !result.ok && (failures > RETRY_DELAYS_MS.length || result.errorCode === 'endpoint_disabled');
      const status = result.ok ? 'succeeded' : exhausted ? 'failed' : 'pending';
      const updated = await executor
        .updateTable('webhook_messages')
        .set({
          status,
          failures,
          manual: 0,
          locked_by: null,
          locked_until: null,
          next_attempt_at: status === 'pending' ? now + RETRY_DELAYS_MS[failures - 1]! : claim.row.next_attempt_at,
          last_error: result.ok ? null : `${result.errorCode ?? 'failed'}: ${result.errorMessage ?? ''}`.slice(0, 500),
          finished_at: status === 'pending' ? null : now,
        })
        .where('id', '=', claim.row.id)
        .where('locked_by', '=', workerId)
        .where('attempts', '=', claim.attempt)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    });
  }

  /**
   * When the earliest message a claim could take is due (null: none), read without a write
   * lock: an idle worker sleeps until then (at most its safety poll). Messages waiting for
   * a delivery under way (of their endpoint, or of a project at its cap) are left out: the
   * worker that finishes it claims the next one at once, and a dead worker's claim is found
   * by the safety poll.
   */
  async nextDueAt(): Promise<number | null> {
    const row = await eligibleMessages(this.database.db, this.clock.now(), 'below-cap')
      .select((eb) => eb.fn.min('next_attempt_at').as('due'))
      .executeTakeFirst();
    // min() of no row is null, and PostgreSQL hands a bigint back as a string: neither is in the column's type.
    const due: unknown = row?.due;
    return due === null || due === undefined ? null : Number(due);
  }

  /** Sends the message again soon, with its `webhook-id`; the retry schedule starts over. */
  async redeliver(projectId: string, endpointId: string, messageId: string): Promise<MessageRow> {
    return writeTransaction(this.database, async (executor) => {
      const now = this.clock.now();
      const row = await findMessage(executor, projectId, endpointId, messageId);
      if (row.locked_until !== null && row.locked_until >= now) {
        throw conflict('This message is being delivered right now; ask again once the attempt is logged.', 'delivery_in_progress');
      }
      return executor
        .updateTable('webhook_messages')
        .set({ status: 'pending', failures: 0, manual: 1, next_attempt_at: now, finished_at: null, locked_by: null, locked_until: null })
        .where('id', '=', messageId)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /** Delivered and failed messages (with their attempts) older than the retention go. */
  async prune(retentionMs: number): Promise<number> {
    const before = this.clock.now() - retentionMs;
    return writeTransaction(this.database, async (executor) => {
      const old = executor.selectFrom('webhook_messages').select('id').where('finished_at', '<', before);
      await executor.deleteFrom('webhook_attempts').where('message_id', 'in', old).execute();
      const deleted = await executor.deleteFrom('webhook_messages').where('finished_at', '<', before).executeTakeFirst();
      return Number(deleted.numDeletedRows);
    });
  }
}
