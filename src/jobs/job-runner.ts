import { join } from 'node:path';
import type { LanguageModel } from 'ai';
import type { Clock } from '../core/clock.js';
import { DocwrightError, isDocwrightError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { lockKey, writeTransaction, type Executor } from '../db/transaction.js';
import type { Logger } from '../app/logger.js';
import type { Budgets } from '../agent/budgets.js';
import { isRetryable } from '../agent/model-errors.js';
import type { ForgeRegistry } from '../git/forges/forge-registry.js';
import { redactSecrets } from '../git/redact.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { ForgeKind } from '../projects/project.js';
import type { JobQueue } from '../queue/job-queue.js';
import type { Notifier } from '../queue/notifier.js';
import type { Lease } from '../queue/worker-pool.js';
import { appendJobEvent, pruneJobEvents, type JobEventType } from './job-events.js';
import { executeTurn, type TurnOutcome } from './execute-turn.js';
import { createServerPathScrubber, type ServerPathScrubber } from './server-paths.js';
import type { JobTurnsTable } from '../db/schema.js';

export interface JobRunnerOptions {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  notifier: Notifier;
  projects: ProjectRepository;
  forges: ForgeRegistry;
  resolveModel: (modelId: string) => LanguageModel;
  budgets: Budgets;
  maxAttempts: number;
  retryBaseMs: number;
  modelRetries: number;
  dataDir: string;
  secrets: string[];
  logger: Logger;
}

/** Backoff after failed attempt n (1-based): base, 2×base, 4×base … capped at ten minutes. */
export const retryDelayMs = (attempt: number, baseMs: number): number => Math.min(600_000, baseMs * 2 ** (attempt - 1));

/**
 * The worker's handler for one claimed job: runs its queued turns in order, then settles
 * the job. Every state change is committed before the next step, so a worker killed at
 * any point leaves a job that the next claim can pick up and finish.
 */
export class JobRunner {
  private readonly scrubPaths: ServerPathScrubber;

  constructor(private readonly options: JobRunnerOptions) {
    this.scrubPaths = createServerPathScrubber({ dataDir: options.dataDir, workspacesDir: join(options.dataDir, 'workspaces') });
  }

  readonly handle = async (lease: Lease): Promise<void> => {
    // Workspace removals wait until the outcome is committed and announced.
    const cleanups: Array<() => Promise<void>> = [];
    try {
      await this.work(lease, cleanups);
    } finally {
      for (const result of await Promise.allSettled(cleanups.map((cleanup) => cleanup()))) {
        if (result.status === 'rejected') this.options.logger.warn({ err: result.reason, jobId: lease.jobId }, 'could not remove a job workspace');
      }
    }
  };

  private async work(lease: Lease, cleanups: Array<() => Promise<void>>): Promise<void> {
    for (;;) {
      if (lease.signal.aborted) return this.stop(lease, null);
      const turn = await this.nextTurn(lease.jobId);
      if (!turn) return this.settle(lease);
      const attempts = turn.attempts + 1;
      if (attempts > this.options.maxAttempts) {
        await this.failTurn(lease, turn, new DocwrightError('attempts_exhausted', `The run was interrupted ${turn.attempts} times (the worker stopped or crashed); giving up.`));
        continue;
      }
      await this.startTurn(lease, turn, attempts);
      try {
        const outcome = await this.execute(lease, turn, cleanups);
        await this.completeTurn(lease, turn, outcome);
      } catch (error) {
        if (lease.signal.aborted) return this.stop(lease, turn);
        if (isRetryable(error) && attempts < this.options.maxAttempts) return this.retryLater(lease, turn, attempts, error);
        await this.failTurn(lease, turn, error);
      }
    }
  }

  private async nextTurn(jobId: string): Promise<JobTurnsTable | undefined> {
    return this.options.database.db
      .selectFrom('job_turns')
      .selectAll()
      .where('job_id', '=', jobId)
      .where('status', 'in', ['queued', 'running'])
      .orderBy('sequence', 'asc')
      .limit(1)
      .executeTakeFirst();
  }

  private async event(jobId: string, type: JobEventType, data: Record<string, unknown>, work?: (executor: Executor, now: number) => Promise<void>): Promise<void> {
    const { database, clock, notifier } = this.options;
    await writeTransaction(database, async (executor) => {
      const now = clock.now();
      if (work) await work(executor, now);
      await appendJobEvent(executor, jobId, type, data, now);
    });
    await notifier.publish('docwright_job_events', jobId);
  }

  private async startTurn(lease: Lease, turn: JobTurnsTable, attempts: number): Promise<void> {
    await this.event(lease.jobId, 'turn.started', { sequence: turn.sequence, attempt: attempts }, async (executor, now) => {
      await executor.updateTable('job_turns').set({ status: 'running', attempts, started_at: now }).where('id', '=', turn.id).execute();
    });
  }

  private async execute(lease: Lease, turn: JobTurnsTable, cleanups: Array<() => Promise<void>>): Promise<TurnOutcome> {
    const { database, projects, forges, options } = { ...this.options, options: this.options };
    const job = await database.db.selectFrom('jobs').selectAll().where('id', '=', lease.jobId).executeTakeFirstOrThrow();
    const project = await projects.get(job.project_id);
    const credentials = await projects.credentials(project.id);
    const history = await database.db
      .selectFrom('job_turns')
      .selectAll()
      .where('job_id', '=', job.id)
      .where('sequence', '<', turn.sequence)
      .where('status', 'in', ['completed', 'failed'])
      .orderBy('sequence', 'asc')
      .execute();
    const credentialValues = credentials === null ? [] : Object.values(credentials).filter((value): value is string => typeof value === 'string' && value.length >= 8);
    return executeTurn(
      {
        jobId: job.id,
        projectName: project.name,
        branch: job.branch,
        baseRef: job.ref,
        model: job.model,
        prompt: turn.prompt,
        sequence: turn.sequence,
        ...(project.settings.writePolicy ? { writePolicy: project.settings.writePolicy } : {}),
        history: history.map((row) => ({
          sequence: row.sequence,
          prompt: row.prompt,
          finalMessage: row.final_message,
          filesChanged: JSON.parse(row.files_changed) as string[],
          commit: row.commit_sha,
        })),
      },
      {
        forge: forges.forKind(project.forge),
        forgeProject: { id: project.id, repository: job.repository, ref: job.ref, credentials },
        resolveModel: options.resolveModel,
        budgets: options.budgets,
        modelRetries: options.modelRetries,
        workspacesDir: join(options.dataDir, 'workspaces'),
        clock: options.clock,
        secrets: [...options.secrets, ...credentialValues],
        signal: lease.signal,
        deferCleanup: (task) => cleanups.push(task),
        onStep: async (step) => {
          await this.event(lease.jobId, 'step', {
            sequence: turn.sequence,
            step: step.stepNumber,
            text: step.text.slice(0, 2_000),
            toolCalls: step.toolCalls.map((call) => ({ tool: call.toolName, argument: call.argumentSummary, ok: call.ok })),
            totalTokens: step.totalUsage.totalTokens,
          });
        },
      },
    );
  }

  private async completeTurn(lease: Lease, turn: JobTurnsTable, outcome: TurnOutcome): Promise<void> {
    let projectId: string | null = null;
    await this.event(lease.jobId, 'turn.completed', { sequence: turn.sequence, filesChanged: outcome.filesChanged, commit: outcome.commit, finalMessage: outcome.finalMessage.slice(0, 4_000), problems: outcome.problems.length, refusedFiles: outcome.refusedFiles.length }, async (executor, now) => {
      await executor
        .updateTable('job_turns')
        .set({
          status: 'completed',
          final_message: outcome.finalMessage,
          steps: JSON.stringify(outcome.steps.slice(0, 500)),
          files_changed: JSON.stringify(outcome.filesChanged),
          commit_sha: outcome.commit,
          problems: JSON.stringify(outcome.problems.slice(0, 200)),
          refused_files: JSON.stringify(outcome.refusedFiles.slice(0, 200)),
          input_tokens: outcome.usage.inputTokens,
          output_tokens: outcome.usage.outputTokens,
          finished_at: now,
          error_code: null,
          error_message: null,
        })
        .where('id', '=', turn.id)
        .execute();
      if (outcome.pullRequest) {
        const { status, ...pullRequest } = outcome.pullRequest;
        const updated = await executor
          .updateTable('jobs')
          .set({ pr_number: pullRequest.number, pr_link: pullRequest.url, pr_status: status ?? null, updated_at: now })
          .where('id', '=', lease.jobId)
          .returning('project_id')
          .executeTakeFirst();
        projectId = updated?.project_id ?? null;
        await appendJobEvent(executor, lease.jobId, 'pull_request', { ...pullRequest }, now);
      }
    });
    if (projectId !== null) await this.options.notifier.publish('docwright_project_jobs', projectId);
  }

  private async failTurn(lease: Lease, turn: JobTurnsTable, error: unknown): Promise<void> {
    const { code, message } = await this.describeError(lease.jobId, error);
    if (!isDocwrightError(error)) this.options.logger.error({ err: error, jobId: lease.jobId }, 'agent turn failed unexpectedly');
    await this.event(lease.jobId, 'turn.failed', { sequence: turn.sequence, code, message }, async (executor, now) => {
      await executor.updateTable('job_turns').set({ status: 'failed', error_code: code, error_message: message, finished_at: now }).where('id', '=', turn.id).execute();
    });
  }

  private async retryLater(lease: Lease, turn: JobTurnsTable, attempts: number, error: unknown): Promise<void> {
    const { code, message } = await this.describeError(lease.jobId, error);
    const delay = retryDelayMs(attempts, this.options.retryBaseMs);
    await this.event(lease.jobId, 'turn.retrying', { sequence: turn.sequence, attempt: attempts, code, message, inSeconds: delay / 1000 }, async (executor, now) => {
      await executor.updateTable('job_turns').set({ status: 'queued', error_code: code, error_message: message }).where('id', '=', turn.id).execute();
      await this.options.queue.release(executor, lease.jobId, lease.workerId, now + delay);
    });
  }

  /** The run was stopped from outside: archived, shut down, or the lease was lost. */
  private async stop(lease: Lease, turn: JobTurnsTable | null): Promise<void> {
    const reason = lease.stopReason();
    const { database, clock, queue } = this.options;
    if (reason === 'lease_lost') return; // another worker owns the job now
    await writeTransaction(database, async (executor) => {
      const job = await executor.selectFrom('jobs').select('status').where('id', '=', lease.jobId).executeTakeFirst();
      if (!job || job.status === 'archived') {
        await queue.remove(executor, lease.jobId);
        return;
      }
      // Shutdown: the interrupted attempt does not count, and another worker may start at once.
      if (turn) await executor.updateTable('job_turns').set({ status: 'queued', attempts: Math.max(0, turn.attempts) }).where('id', '=', turn.id).execute();
      await queue.release(executor, lease.jobId, lease.workerId, clock.now());
    });
    await this.options.notifier.publish('docwright_jobs', lease.jobId);
  }

  /** No turn left: the job takes the outcome of its last turn, unless a message slipped in. */
  private async settle(lease: Lease): Promise<void> {
    const { database, clock, queue, notifier } = this.options;
    const settledAs = await writeTransaction(database, async (executor) => {
      // The same lock as JobService.message, so a follow-up cannot slip in between the check and the settle.
      await lockKey(database, executor, `job:${lease.jobId}`);
      const job = await executor.selectFrom('jobs').select(['status', 'id', 'project_id']).where('id', '=', lease.jobId).executeTakeFirst();
      const pending = await executor.selectFrom('job_turns').select('id').where('job_id', '=', lease.jobId).where('status', 'in', ['queued', 'running']).executeTakeFirst();
      if (pending) return null;
      await queue.remove(executor, lease.jobId);
      if (!job || job.status === 'archived') return null;
      const last = await executor.selectFrom('job_turns').selectAll().where('job_id', '=', lease.jobId).orderBy('sequence', 'desc').limit(1).executeTakeFirst();
      const now = clock.now();
      const failed = last?.status === 'failed';
      await executor
        .updateTable('jobs')
        .set({ status: failed ? 'failed' : 'completed', error_code: failed ? last?.error_code ?? 'failed' : null, error_message: failed ? last?.error_message ?? null : null, updated_at: now })
        .where('id', '=', lease.jobId)
        .execute();
      await appendJobEvent(executor, lease.jobId, failed ? 'job.failed' : 'job.completed', failed ? { code: last?.error_code, message: last?.error_message } : {}, now);
      await pruneJobEvents(executor, lease.jobId);
      return { status: failed ? 'failed' : 'completed', projectId: job.project_id };
    });
    if (settledAs === null) {
      const again = await this.nextTurn(lease.jobId);
      if (again) return this.handle(lease);
    }
    await notifier.publish('docwright_job_events', lease.jobId);
    if (settledAs !== null) await notifier.publish('docwright_project_jobs', settledAs.projectId);
  }

  /**
   * What the job's API and events show of a failure: its code, and its message without this
   * process's secrets or server paths (the job's own repository path is kept, see server-paths.ts).
   * The server log keeps the error whole.
   */
  private async describeError(jobId: string, error: unknown): Promise<{ code: string; message: string }> {
    if (!isDocwrightError(error)) return { code: 'internal_error', message: 'The run failed because of an internal error; see the server log.' };
    const job = await this.options.database.db.selectFrom('jobs').select('repository').where('id', '=', jobId).executeTakeFirst();
    const message = this.scrubPaths(redactSecrets(error.message, this.options.secrets), job ? [job.repository] : []);
    return { code: error.code, message: message.slice(0, 2_000) };
  }
}
