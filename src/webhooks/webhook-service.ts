import type { Clock } from '../core/clock.js';
import { badRequest, conflict, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { SecretBox } from '../core/secret-box.js';
import type { Database } from '../db/database.js';
import { writeTransaction } from '../db/transaction.js';
import { endpointFromRow, type WebhookEndpoint } from './webhook-endpoint.js';
import type { WebhookEventType } from './webhook-events.js';
import type { WebhookNetworkPolicy } from './webhook-network-policy.js';
import { generateWebhookSecret } from './webhook-signature.js';

/** Endpoints one project may have. */
export const MAX_ENDPOINTS_PER_PROJECT = 20;

export interface WebhookServiceOptions {
  database: Database;
  clock: Clock;
  /** DOCWRIGHT_SECRET: the secrets are sealed under a key derived for this purpose alone. */
  instanceSecret: string;
  policy: WebhookNetworkPolicy;
  /** How long a rotated-out secret keeps signing, unless the rotation asks for less. */
  secretOverlapMs: number;
}

export interface EndpointInput {
  url: string;
  description?: string;
  events?: WebhookEventType[];
  enabled?: boolean;
}

/** A project's webhook endpoints: create, change, rotate, delete; and the secrets to sign with. */
export class WebhookService {
  private readonly box: SecretBox;

  constructor(private readonly options: WebhookServiceOptions) {
    this.box = new SecretBox(options.instanceSecret, 'webhook-secrets');
  }

  async list(projectId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.options.database.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    const now = this.options.clock.now();
    return rows.map((row) => endpointFromRow(row, now));
  }

  async get(projectId: string, endpointId: string): Promise<WebhookEndpoint> {
    return endpointFromRow(await this.row(projectId, endpointId), this.options.clock.now());
  }

  /** The new endpoint and its secret, which is returned this once and stored only sealed. */
  async create(projectId: string, input: EndpointInput): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const { database, clock } = this.options;
    const url = this.checkUrl(input.url);
    const id = `ep_${newId()}`;
    const secret = generateWebhookSecret();
    await writeTransaction(database, async (executor) => {
      const count = await executor
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow();
      if (Number(count.count) >= MAX_ENDPOINTS_PER_PROJECT) {
        throw conflict(`A project can have at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first.`, 'webhook_limit_reached');
      }
      const now = clock.now();
      await executor
        .insertInto('webhook_endpoints')
        .values({
          id,
          project_id: projectId,
          url,
          description: input.description ?? '',
          events: JSON.stringify(uniqueEvents(input.events ?? [])),
          enabled: input.enabled === false ? 0 : 1,
          secret_sealed: this.box.seal(secret, id),
          previous_secret_sealed: null,
          previous_secret_expires_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    });
    return { endpoint: await this.get(projectId, id), secret };
  }

  async update(projectId: string, endpointId: string, input: Partial<EndpointInput>): Promise<WebhookEndpoint> {
    await this.row(projectId, endpointId);
    const changes = {
      ...(input.url === undefined ? {} : { url: this.checkUrl(input.url) }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.events === undefined ? {} : { events: JSON.stringify(uniqueEvents(input.events)) }),
      ...(input.enabled === undefined ? {} : { enabled: input.enabled ? 1 : 0 }),
    };
    await this.options.database.db
      .updateTable('webhook_endpoints')
      .set({ ...changes, updated_at: this.options.clock.now() })
      .where('id', '=', endpointId)
      .where('project_id', '=', projectId)
      .execute();
    return this.get(projectId, endpointId);
  }

  /** Deletes the endpoint with its undelivered messages and its delivery log. */
  async delete(projectId: string, endpointId: string): Promise<void> {
    await this.row(projectId, endpointId);
    await writeTransaction(this.options.database, async (executor) => {
      await executor.deleteFrom('webhook_attempts').where('endpoint_id', '=', endpointId).execute();
      await executor.deleteFrom('webhook_messages').where('endpoint_id', '=', endpointId).execute();
      await executor.deleteFrom('webhook_endpoints').where('id', '=', endpointId).execute();
    });
  }

  /**
   * A new secret; the current one keeps signing (a second `v1,` signature) for the overlap,
   * so receivers can switch without missing a message. A rotation during an overlap drops
   * the older previous secret at once.
   */
  async rotateSecret(projectId: string, endpointId: string, overlapMs?: number): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const row = await this.row(projectId, endpointId);
    const now = this.options.clock.now();
    const secret = generateWebhookSecret();
    const overlap = overlapMs ?? this.options.secretOverlapMs;
    await this.options.database.db
      .updateTable('webhook_endpoints')
      .set({
        secret_sealed: this.box.seal(secret, endpointId),
        previous_secret_sealed: overlap > 0 ? row.secret_sealed : null,
        previous_secret_expires_at: overlap > 0 ? now + overlap : null,
        updated_at: now,
      })
      .where('id', '=', endpointId)
      .where('secret_sealed', '=', row.secret_sealed)
      .execute();
    return { endpoint: await this.get(projectId, endpointId), secret };
  }

  /** The secrets that sign a message now: the current one, and the previous one during its overlap. */
  async signingSecrets(endpointId: string): Promise<{ url: string; enabled: boolean; secrets: string[] } | null> {
    const row = await this.options.database.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirst();
    if (!row) return null;
    const secrets = [this.box.open(row.secret_sealed, row.id)];
    if (row.previous_secret_sealed !== null && (row.previous_secret_expires_at ?? 0) > this.options.clock.now()) {
      secrets.push(this.box.open(row.previous_secret_sealed, row.id));
    }
    return { url: row.url, enabled: row.enabled === 1, secrets };
  }

  /** Everything of a project's webhooks, for project deletion. */
  async deleteProjectData(projectId: string): Promise<void> {
    await writeTransaction(this.options.database, async (executor) => {
      const endpoints = executor.selectFrom('webhook_endpoints').select('id').where('project_id', '=', projectId);
      await executor.deleteFrom('webhook_attempts').where('endpoint_id', 'in', endpoints).execute();
      await executor.deleteFrom('webhook_messages').where('project_id', '=', projectId).execute();
      await executor.deleteFrom('webhook_endpoints').where('project_id', '=', projectId).execute();
    });
  }

  private async row(projectId: string, endpointId: string) {
    const row = await this.options.database.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpointId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (!row) throw notFound(`No webhook endpoint "${endpointId}" in this project.`);
    return row;
  }

  private checkUrl(text: string): string {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw badRequest('webhook_url_invalid', 'url must be an absolute URL.');
    }
    const refusal = this.options.policy.refuseUrl(url);
    if (refusal !== null) throw badRequest('webhook_url_refused', `url ${refusal}.`);
    return url.toString();
  }
}

const uniqueEvents = (events: readonly WebhookEventType[]): WebhookEventType[] => [...new Set(events)].sort();
