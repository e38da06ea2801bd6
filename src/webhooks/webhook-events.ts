import { newId } from '../core/ids.js';
import type { Executor } from '../db/transaction.js';
import type { Notifier } from '../queue/notifier.js';

export const WEBHOOK_EVENT_TYPES = [
  'job.completed',
  'job.failed',
  'job.archived',
  'job.cancelled',
  'pull_request.opened',
  'pull_request.updated',
  'pull_request.merged',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Undelivered messages one endpoint may hold; beyond it new events for that endpoint are dropped (docs/webhooks.md, "Limits"). */
export const MAX_PENDING_PER_ENDPOINT = 10_000;
/** The stored data of one event; payloads are small by design (ids and links). */
export const MAX_EVENT_DATA_BYTES = 16 * 1024;
const MAX_ERROR_MESSAGE = 1_000;

export interface JobEventData {
  projectId: string;
  jobId: string;
  status: string;
  error: { code: string; message: string } | null;
  prLink: string | null;
}

export interface PullRequestEventData {
  projectId: string;
  jobId: string;
  pullRequest: { number: number; url: string };
}

export type WebhookEvent =
  | { type: 'job.completed' | 'job.failed' | 'job.archived' | 'job.cancelled'; data: JobEventData }
  | { type: 'pull_request.opened' | 'pull_request.updated' | 'pull_request.merged'; data: PullRequestEventData };

/**
 * The event a job's settle announces. A job that failed because it was cancelled
 * (`error.code` `cancelled`) announces `job.cancelled` instead of `job.failed`.
 */
export function settledEventType(status: 'completed' | 'failed', errorCode: string | null): 'job.completed' | 'job.failed' | 'job.cancelled' {
  if (status === 'completed') return 'job.completed';
  return errorCode === 'cancelled' ? 'job.cancelled' : 'job.failed';
}

/** The job columns jobEventData reads: what a write that announces a job change returns. */
export const JOB_EVENT_COLUMNS = ['id', 'project_id', 'status', 'error_code', 'error_message', 'pr_link'] as const;

/** A job row's fields as an event's data; long error messages are cut. */
export function jobEventData(row: {
  id: string;
  project_id: string;
  status: string;
  error_code: string | null;
  error_message: string | null;
  pr_link: string | null;
}): JobEventData {
  return {
    projectId: row.project_id,
    jobId: row.id,
    status: row.status,
    error: row.error_code === null ? null : { code: row.error_code, message: (row.error_message ?? '').slice(0, MAX_ERROR_MESSAGE) },
    prLink: row.pr_link,
  };
}

/**
 * Writes the event into the outbox, one message per enabled endpoint of the project whose
 * filter takes it. Call it inside the transaction that makes the change: the message
 * commits with the change or not at all, so no change goes unannounced and no event
 * announces a change that rolled back. Costs one indexed read when the project has no
 * endpoint.
 */
export async function recordWebhookEvent(executor: Executor, event: WebhookEvent, now: number): Promise<number> {
  const endpoints = await executor
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('project_id', '=', event.data.projectId)
    .where('enabled', '=', 1)
    .execute();
  const data = boundedData(event.data);
  let recorded = 0;
  for (const endpoint of endpoints) {
    const filter = JSON.parse(endpoint.events) as string[];
    if (filter.length > 0 && !filter.includes(event.type)) continue;
    if (await outboxFull(executor, endpoint.id)) continue;
    await executor
      .insertInto('webhook_messages')
      .values({
        id: `msg_${newId()}`,
        project_id: event.data.projectId,
        endpoint_id: endpoint.id,
        event_type: event.type,
        data,
        occurred_at: now,
        status: 'pending',
        attempts: 0,
        failures: 0,
        manual: 0,
        next_attempt_at: now,
        locked_by: null,
        locked_until: null,
        last_error: null,
        created_at: now,
        finished_at: null,
      })
      .execute();
    recorded += 1;
  }
  return recorded;
}

/**
 * Wakes the delivery workers once a transaction that recorded `recorded` messages has
 * committed: this process's at once, other processes' by NOTIFY (PostgreSQL). A hint only:
 * a lost one leaves the message to the workers' safety poll.
 */
export async function wakeWebhookWorkers(notifier: Pick<Notifier, 'publish'>, recorded = 1): Promise<void> {
  if (recorded > 0) await notifier.publish('docwright_webhooks');
}

/**
 * The event's data as stored. Its fields are bounded already (ids, a forge's URL, an error
 * message cut to 1,000 characters); should a forge hand back an absurd URL, the event keeps
 * its ids and says so rather than failing the job's transaction.
 */
function boundedData(data: WebhookEvent['data']): string {
  const text = JSON.stringify(data);
  if (Buffer.byteLength(text) <= MAX_EVENT_DATA_BYTES) return text;
  return JSON.stringify({ projectId: data.projectId, jobId: data.jobId, truncated: true });
}

async function outboxFull(executor: Executor, endpointId: string): Promise<boolean> {
  // Counts at most one past the cap: the index on (endpoint_id, status) keeps this a short range scan.
  const rows = await executor
    .selectFrom('webhook_messages')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .offset(MAX_PENDING_PER_ENDPOINT - 1)
    .limit(1)
    .execute();
  return rows.length > 0;
}
