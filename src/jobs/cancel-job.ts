import type { Clock } from '../core/clock.js';
import { conflict } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { lockKey, writeTransaction } from '../db/transaction.js';
import { lockQueueRow } from '../queue/lease-fence.js';
import type { Notifier } from '../queue/notifier.js';
import { appendJobEvent, pruneJobEvents } from './job-events.js';
import { jobFromRow, type Job, type JobStatus } from './job.js';
import type { JobRepository } from './job-repository.js';
import { assertTransition, canCancel } from './job-state.js';
import { JOB_EVENT_COLUMNS, jobEventData, recordWebhookEvent, settledEventType, wakeWebhookWorkers } from '../webhooks/webhook-events.js';

/** The error a cancelled job (and each turn the cancel stopped) carries. */
export const CANCELLED = { code: 'cancelled', message: 'The job was cancelled by request.' } as const;

export interface CancelJobOptions {
  database: Database;
  clock: Clock;
  notifier: Notifier;
  repository: JobRepository;
}

/**
 * Cancels an active job (decisions.md): in one transaction, under the job's lock (the one a
 * follow-up and the run's settle take), its running and queued turns become `cancelled`,
 * the job `failed` with `error.code` `cancelled`, and its queue row is deleted — also when
 * a worker holds it. Deleting the row is what stops the run everywhere: every later write
 * of that run, and the check right before its push, is fenced by the row's lease token
 * (lease-fence.ts), so nothing it has not pushed yet is pushed, and its uncommitted
 * changes go with its workspace. The worker learns of it at once in-process or by NOTIFY
 * (`docwright_job_control`), else from its control poll within a second (worker-pool.ts),
 * and aborts the model call. What earlier turns pushed stays on the branch and in the pull
 * request; a follow-up re-activates the job like any failed job.
 */
export async function cancelJob(options: CancelJobOptions, projectId: string, jobId: string): Promise<Job> {
  const { database, clock, notifier, repository } = options;
  let webhookMessages = 0;
  const job = await writeTransaction(database, async (executor) => {
    await lockKey(database, executor, `job:${jobId}`);
    // Before the turns, in the order a run's fenced writes take them (lease-fence.ts).
    await lockQueueRow(database, executor, jobId);
    const row = await repository.getRow(executor, projectId, jobId);
    const from = row.status as JobStatus;
    if (!canCancel(from)) {
      throw conflict(`Only an active job can be cancelled; this one is ${from}.`, 'job_not_active');
    }
    assertTransition(jobId, from, 'failed');
    const now = clock.now();
    const stopped = await executor
      .updateTable('job_turns')
      .set({ status: 'cancelled', finished_at: now, error_code: CANCELLED.code, error_message: CANCELLED.message })
      .where('job_id', '=', jobId)
      .where('status', 'in', ['queued', 'running'])
      .returning('sequence')
      .execute();
    await executor.deleteFrom('job_queue').where('job_id', '=', jobId).execute();
    const settled = await executor
      .updateTable('jobs')
      .set({ status: 'failed', error_code: CANCELLED.code, error_message: CANCELLED.message, updated_at: now })
      .where('id', '=', jobId)
      .returning(JOB_EVENT_COLUMNS)
      .executeTakeFirstOrThrow();
    // In the cancel's own transaction, like every webhook event (docs/webhooks.md).
    webhookMessages = await recordWebhookEvent(executor, { type: settledEventType('failed', settled.error_code), data: jobEventData(settled) }, now);
    for (const turn of stopped.sort((a, b) => a.sequence - b.sequence)) {
      await appendJobEvent(executor, jobId, 'turn.cancelled', { sequence: turn.sequence, ...CANCELLED }, now);
    }
    await appendJobEvent(executor, jobId, 'job.failed', { ...CANCELLED }, now);
    await pruneJobEvents(executor, jobId);
    return jobFromRow(await repository.getRow(executor, projectId, jobId));
  });
  await notifier.publish('docwright_job_control', jobId);
  // Answered once every process has dropped its cached copy of the job (JobRowCache).
  await notifier.publishAndConfirm('docwright_job_events', jobId);
  await notifier.publish('docwright_project_jobs', projectId);
  await wakeWebhookWorkers(notifier, webhookMessages);
  return job;
}
