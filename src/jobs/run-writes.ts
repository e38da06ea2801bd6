import type { Clock } from '../core/clock.js';
import type { Database } from '../db/database.js';
import type { JobTurnsTable } from '../db/schema.js';
import { lockKey, writeTransaction, type Executor } from '../db/transaction.js';
import type { JobQueue } from '../queue/job-queue.js';
import { holdLease, type LeaseClaim } from '../queue/lease-fence.js';
import type { Notifier } from '../queue/notifier.js';
import type { TurnOutcome } from './execute-turn.js';
import { instructionsSummary } from '../agent/repository-instructions.js';
import { appendJobEvent, pruneJobEvents, type JobEventType } from './job-events.js';
import { assertTransition } from './job-state.js';
import type { JobStatus } from './job.js';
import { JOB_EVENT_COLUMNS, jobEventData, recordWebhookEvent, settledEventType, wakeWebhookWorkers } from '../webhooks/webhook-events.js';

export interface RunWritesOptions {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  notifier: Notifier;
}

/** What a failed or retried turn records: a stable code and a message fit for the job's API. */
export interface TurnFailure {
  code: string;
  message: string;
}

type TurnRow = Pick<JobTurnsTable, 'id' | 'sequence' | 'attempts'>;

/**
 * Every database write of a job's run. Each one is a transaction that first proves, with
 * `holdLease`, that the run's lease token is still the queue row's: once another worker
 * has claimed the job, each of them throws `LeaseLostError` and writes nothing (no event,
 * no turn or job change, no release). Notifications go out after the commit.
 */
export class RunWrites {
  constructor(private readonly options: RunWritesOptions) {}

  /** One fenced transaction: the lease check, then `work` with the transaction's time. */
  fenced<T>(lease: LeaseClaim, work: (executor: Executor, now: number) => Promise<T>, options: { lockJob?: boolean } = {}): Promise<T> {
    const { database, clock } = this.options;
    return writeTransaction(database, async (executor) => {
      // The lock JobService.message and archive take, always before the queue row's.
      if (options.lockJob) await lockKey(database, executor, `job:${lease.jobId}`);
      await holdLease(database, lease, executor);
      return work(executor, clock.now());
    });
  }

  /** Appends an event (with `work` in the same transaction) and wakes the job's event streams. */
  async event(lease: LeaseClaim, type: JobEventType, data: Record<string, unknown>, work?: (executor: Executor, now: number) => Promise<void>): Promise<void> {
    await this.fenced(lease, async (executor, now) => {
      if (work) await work(executor, now);
      await appendJobEvent(executor, lease.jobId, type, data, now);
    });
    await this.options.notifier.publish('docwright_job_events', lease.jobId);
  }

  async startTurn(lease: LeaseClaim, turn: TurnRow, attempts: number): Promise<void> {
    await this.event(lease, 'turn.started', { sequence: turn.sequence, attempt: attempts }, async (executor, now) => {
      await executor.updateTable('job_turns').set({ status: 'running', attempts, started_at: now }).where('id', '=', turn.id).execute();
    });
  }

  /**
   * The turn's outcome, and the pull request it opened or updated, recorded under the
   * lease's token. With a `failure` (a run a budget stopped) the turn is recorded as failed
   * with its work: its commit, files and pull request stand.
   */
  async completeTurn(lease: LeaseClaim, turn: TurnRow, outcome: TurnOutcome, failure: TurnFailure | null = null): Promise<void> {
    // Typed by assertion: assigned inside the callback, which narrowing from `= null` would not see.
    let projectId = null as string | null;
    let webhookMessages = 0;
    const data = {
      sequence: turn.sequence,
      filesChanged: outcome.filesChanged,
      commit: outcome.commit,
      finalMessage: outcome.finalMessage.slice(0, 4_000),
      problems: outcome.problems.length,
      newProblems: outcome.unresolvedProblems,
      fixRounds: outcome.fixRounds,
      refusedFiles: outcome.refusedFiles.length,
      ...(outcome.pullRequest?.warnings === undefined ? {} : { warnings: outcome.pullRequest.warnings.length }),
      // Which AGENTS.md (or the like) the agent was given, so a user can tell why it behaved as it did.
      ...instructionsSummary(outcome.instructions),
    };
    await this.event(lease, failure === null ? 'turn.completed' : 'turn.failed', failure === null ? data : { ...data, ...failure }, async (executor, now) => {
      await executor
        .updateTable('job_turns')
        .set({
          status: failure === null ? 'completed' : 'failed',
          final_message: outcome.finalMessage,
          steps: JSON.stringify(outcome.steps.slice(0, 500)),
          files_changed: JSON.stringify(outcome.filesChanged),
          commit_sha: outcome.commit,
          problems: JSON.stringify(outcome.problems.slice(0, 200)),
          refused_files: JSON.stringify(outcome.refusedFiles.slice(0, 200)),
          warnings: JSON.stringify((outcome.pullRequest?.warnings ?? []).slice(0, 50)),
          finished_at: now,
          error_code: failure?.code ?? null,
          error_message: failure?.message ?? null,
        })
        .where('id', '=', turn.id)
        .execute();
      await executor.updateTable('jobs').set({ unresolved_problems: outcome.unresolvedProblems }).where('id', '=', lease.jobId).execute();
      if (outcome.pullRequest) {
        const { status, ...pullRequest } = outcome.pullRequest;
        const before = await executor.selectFrom('jobs').select('pr_number').where('id', '=', lease.jobId).executeTakeFirst();
        const updated = await executor
          .updateTable('jobs')
          .set({ pr_number: pullRequest.number, pr_link: pullRequest.url, pr_status: status ?? null, updated_at: now })
          .where('id', '=', lease.jobId)
          .returning('project_id')
          .executeTakeFirst();
        projectId = updated?.project_id ?? null;
        await appendJobEvent(executor, lease.jobId, 'pull_request', { ...pullRequest }, now);
        if (projectId !== null) {
          // Opened the first time the job records a pull request (also when an existing one was adopted after a crash).
          const type = before?.pr_number === null || before === undefined ? 'pull_request.opened' : 'pull_request.updated';
          const data = { projectId, jobId: lease.jobId, pullRequest: { number: pullRequest.number, url: pullRequest.url } };
          webhookMessages = await recordWebhookEvent(executor, { type, data }, now);
        }
      }
    });
    if (projectId !== null) await this.options.notifier.publish('docwright_project_jobs', projectId);
    await wakeWebhookWorkers(this.options.notifier, webhookMessages);
  }

  async failTurn(lease: LeaseClaim, turn: TurnRow, failure: TurnFailure): Promise<void> {
    await this.event(lease, 'turn.failed', { sequence: turn.sequence, ...failure }, async (executor, now) => {
      await executor
        .updateTable('job_turns')
        .set({ status: 'failed', error_code: failure.code, error_message: failure.message, finished_at: now })
        .where('id', '=', turn.id)
        .execute();
    });
  }

  /** Queues the turn again and releases the job to run after `delayMs` (the token ends here). */
  async retryLater(lease: LeaseClaim, turn: TurnRow, attempts: number, failure: TurnFailure, delayMs: number): Promise<void> {
    await this.event(lease, 'turn.retrying', { sequence: turn.sequence, attempt: attempts, ...failure, inSeconds: delayMs / 1000 }, async (executor, now) => {
      await executor
        .updateTable('job_turns')
        .set({ status: 'queued', error_code: failure.code, error_message: failure.message })
        .where('id', '=', turn.id)
        .execute();
      await this.options.queue.release(executor, lease, now + delayMs);
    });
  }

  /**
   * The run was stopped from outside (shutdown, archive): an archived job's row goes; any
   * other job is handed back at once, its interrupted attempt not counted.
   */
  async handBack(lease: LeaseClaim, turn: TurnRow | null): Promise<void> {
    const { queue, notifier } = this.options;
    await this.fenced(lease, async (executor, now) => {
      const job = await executor.selectFrom('jobs').select('status').where('id', '=', lease.jobId).executeTakeFirst();
      if (!job || job.status === 'archived') {
        await queue.remove(executor, lease.jobId);
        return;
      }
      if (turn)
        await executor
          .updateTable('job_turns')
          .set({ status: 'queued', attempts: Math.max(0, turn.attempts) })
          .where('id', '=', turn.id)
          .execute();
      await queue.release(executor, lease, now);
    });
    await notifier.publish('docwright_jobs', lease.jobId);
  }

  /**
   * No turn left: the job takes the outcome of its last turn and its queue row goes. False
   * when a follow-up slipped in (nothing is written then: the run goes on with it).
   */
  async settle(lease: LeaseClaim): Promise<boolean> {
    const { queue, notifier } = this.options;
    const settledAs = await this.fenced(
      lease,
      async (executor, now) => {
        const job = await executor.selectFrom('jobs').select(['status', 'id', 'project_id']).where('id', '=', lease.jobId).executeTakeFirst();
        const pending = await executor
          .selectFrom('job_turns')
          .select('id')
          .where('job_id', '=', lease.jobId)
          .where('status', 'in', ['queued', 'running'])
          .executeTakeFirst();
        if (pending) return 'pending' as const;
        await queue.remove(executor, lease.jobId);
        if (!job || job.status === 'archived') return null;
        const last = await executor
          .selectFrom('job_turns')
          .selectAll()
          .where('job_id', '=', lease.jobId)
          .orderBy('sequence', 'desc')
          .limit(1)
          .executeTakeFirst();
        const failed = last?.status === 'failed';
        const status = failed ? 'failed' : 'completed';
        assertTransition(lease.jobId, job.status as JobStatus, status);
        const settled = await executor
          .updateTable('jobs')
          .set({
            status,
            error_code: failed ? (last.error_code ?? 'failed') : null,
            error_message: failed ? last.error_message : null,
            updated_at: now,
          })
          .where('id', '=', lease.jobId)
          .returning(JOB_EVENT_COLUMNS)
          .executeTakeFirstOrThrow();
        // job.cancelled instead of job.failed when the failure is a cancel (webhook-events.ts).
        const webhookMessages = await recordWebhookEvent(executor, { type: settledEventType(status, settled.error_code), data: jobEventData(settled) }, now);
        await appendJobEvent(
          executor,
          lease.jobId,
          failed ? 'job.failed' : 'job.completed',
          failed ? { code: last.error_code, message: last.error_message } : {},
          now,
        );
        await pruneJobEvents(executor, lease.jobId);
        return { projectId: job.project_id, webhookMessages };
      },
      // The same lock as JobService.message, so a follow-up cannot slip in between the check and the settle.
      { lockJob: true },
    );
    if (settledAs === 'pending') return false;
    await notifier.publish('docwright_job_events', lease.jobId);
    if (settledAs !== null) await notifier.publish('docwright_project_jobs', settledAs.projectId);
    if (settledAs !== null) await wakeWebhookWorkers(notifier, settledAs.webhookMessages);
    return true;
  }
}
