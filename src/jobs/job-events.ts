import type { Executor } from '../db/transaction.js';

export type JobEventType =
  | 'job.created'
  | 'turn.queued'
  | 'turn.started'
  | 'step'
  | 'turn.retrying'
  | 'turn.completed'
  | 'turn.failed'
  | 'turn.cancelled'
  | 'pull_request'
  | 'job.completed'
  | 'job.failed'
  | 'job.archived';

/** Events that end a stream: nothing more happens until a follow-up re-activates the job. */
export const SETTLING_EVENTS: ReadonlySet<string> = new Set(['job.completed', 'job.failed', 'job.archived']);

export interface JobEvent {
  id: number;
  type: JobEventType;
  data: Record<string, unknown>;
  createdAt: string;
}

/** Keeps a runaway job from growing its event log without bound; the newest events win. */
export const MAX_EVENTS_PER_JOB = 2_000;

export async function appendJobEvent(executor: Executor, jobId: string, type: JobEventType, data: Record<string, unknown>, now: number): Promise<void> {
  await executor
    .insertInto('job_events')
    .values({ job_id: jobId, type, data: JSON.stringify(data), created_at: now })
    .execute();
}

/** Deletes all but the newest MAX_EVENTS_PER_JOB events of a job. */
export async function pruneJobEvents(executor: Executor, jobId: string): Promise<void> {
  const boundary = await executor
    .selectFrom('job_events')
    .select('id')
    .where('job_id', '=', jobId)
    .orderBy('id', 'desc')
    .offset(MAX_EVENTS_PER_JOB)
    .limit(1)
    .executeTakeFirst();
  if (boundary) await executor.deleteFrom('job_events').where('job_id', '=', jobId).where('id', '<=', boundary.id).execute();
}

export async function readJobEvents(executor: Executor, jobId: string, afterId: number, limit = 500): Promise<JobEvent[]> {
  const rows = await executor
    .selectFrom('job_events')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('id', '>', afterId)
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    type: row.type as JobEventType,
    data: JSON.parse(row.data) as Record<string, unknown>,
    createdAt: new Date(row.created_at).toISOString(),
  }));
}
