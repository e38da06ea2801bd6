import type { Database } from '../db/database.js';
import type { WebhookAttemptsTable } from '../db/schema.js';
import { findMessage, type MessageRow } from './webhook-outbox.js';
import { renderPayload } from './webhook-payload.js';
import type { WebhookEventType } from './webhook-events.js';

/** A message of the outbox as the delivery log shows it. */
export interface WebhookMessage {
  id: string;
  endpointId: string;
  eventType: WebhookEventType;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface WebhookAttempt {
  attempt: number;
  trigger: 'scheduled' | 'manual';
  startedAt: string;
  durationMs: number;
  outcome: 'succeeded' | 'failed';
  responseStatus: number | null;
  responseBody: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function messageFromRow(row: MessageRow): WebhookMessage {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventType: row.event_type as WebhookEventType,
    status: row.status as WebhookMessage['status'],
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    lastError: row.last_error,
    createdAt: new Date(row.created_at).toISOString(),
    finishedAt: iso(row.finished_at),
  };
}

function attemptFromRow(row: WebhookAttemptsTable): WebhookAttempt {
  return {
    attempt: row.attempt,
    trigger: row.trigger as WebhookAttempt['trigger'],
    startedAt: new Date(row.started_at).toISOString(),
    durationMs: row.duration_ms,
    outcome: row.outcome as WebhookAttempt['outcome'],
    responseStatus: row.response_status,
    responseBody: row.response_body,
    errorCode: row.error_code,
    errorMessage: row.error_message,
  };
}

/** The delivery log: an endpoint's messages, newest first, and one message with its attempts. */
export class WebhookDeliveries {
  constructor(private readonly database: Database) {}

  async list(
    endpointId: string,
    query: { status?: WebhookMessage['status'] | undefined; limit: number; offset: number },
  ): Promise<{ messages: WebhookMessage[]; hasMore: boolean }> {
    let select = this.database.db.selectFrom('webhook_messages').selectAll().where('endpoint_id', '=', endpointId);
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit + 1)
      .offset(query.offset)
      .execute();
    return { messages: rows.slice(0, query.limit).map(messageFromRow), hasMore: rows.length > query.limit };
  }

  async get(
    projectId: string,
    endpointId: string,
    messageId: string,
    publicUrl: string,
  ): Promise<WebhookMessage & { payload: unknown; attemptLog: WebhookAttempt[] }> {
    const row = await findMessage(this.database.db, projectId, endpointId, messageId);
    const attempts = await this.database.db.selectFrom('webhook_attempts').selectAll().where('message_id', '=', messageId).orderBy('attempt', 'asc').execute();
    return { ...messageFromRow(row), payload: JSON.parse(renderPayload(row, publicUrl)) as unknown, attemptLog: attempts.map(attemptFromRow) };
  }
}
