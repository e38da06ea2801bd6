import { join } from 'node:path';
import type { LanguageModel } from 'ai';
import type { Clock } from '../core/clock.js';
import { DocwrightError, isDocwrightError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../app/logger.js';
import type { Budgets } from '../agent/budgets.js';
import type { AgentAnalyticsSource } from '../agent/tools/analytics-tool.js';
import { isRetryable, ModelError } from '../agent/model-errors.js';
import type { ForgeRegistry } from '../git/forges/forge-registry.js';
import type { PullRequestControls } from '../git/forges/forge.js';
import { redactSecrets } from '../git/redact.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { JobQueue } from '../queue/job-queue.js';
import type { Notifier } from '../queue/notifier.js';
import type { Lease } from '../queue/worker-pool.js';
import { holdLease, isLeaseLost } from '../queue/lease-fence.js';
import { RunWrites } from './run-writes.js';
import { executeTurn, type TurnOutcome } from './execute-turn.js';
import { InstructionsMemo } from './instructions-memo.js';
import { createServerPathScrubber, type ServerPathScrubber } from './server-paths.js';
import type { JobTurnsTable } from '../db/schema.js';
import { contextWindowOf, maxOutputTokensOf, type ModelPrices } from '../config/model-prices.js';
import { contextLimitsFor, STEP_OUTPUT_TOKENS, type ContextLimits } from '../agent/context-window.js';
import { BudgetExceededError } from '../agent/run-errors.js';
import { BaseIndexCache } from '../docs-site/base-index-cache.js';
import { ToolWorkerPool } from '../agent/tools/index.js';
import { monthlyBudgetExhausted, monthlyBudgetRanOut, monthOf, recordUsage, tokensUsedInMonth, usageDelta } from './job-usage.js';

export interface JobRunnerOptions {
  database: Database;
  clock: Clock;
  queue: JobQueue;
  notifier: Notifier;
  projects: ProjectRepository;
  forges: ForgeRegistry;
  resolveModel: (modelId: string) => LanguageModel;
  /** The agent's analytics tool, bound here to the job's project (absent: no such tool). */
  analytics?: AgentAnalyticsSource;
  budgets: Budgets;
  /** Prices for the usage's estimated cost. */
  prices: ModelPrices;
  /** Tokens per project and UTC month when the project sets none; null = no budget. */
  monthlyTokenBudget: number | null;
  maxAttempts: number;
  retryBaseMs: number;
  modelRetries: number;
  /** Cap on the repository's instruction file in the system prompt; 0 = not read. */
  repositoryInstructionsMaxBytes: number;
  dataDir: string;
  secrets: string[];
  logger: Logger;
}

/** The longest provider-asked wait a job's retry honours: a queued turn costs nothing, but a day-long quota is not worth holding. */
const MAX_PROVIDER_WAIT_MS = 3_600_000;

/** A model's request limits: its window from the model table, less the step's output. */
function modelLimits(prices: ModelPrices, modelId: string): { context: ContextLimits; maxOutputTokens: number } {
  const maxOutputTokens = Math.min(STEP_OUTPUT_TOKENS, maxOutputTokensOf(prices, modelId));
  return { context: contextLimitsFor(contextWindowOf(prices, modelId), maxOutputTokens), maxOutputTokens };
}

/**
 * Backoff after failed attempt n (1-based): base, 2×base, 4×base … capped at ten minutes;
 * never shorter than the wait the model provider asked for (`retry-after`, up to an hour),
 * since retrying earlier only spends an attempt on the same refusal.
 */
export const retryDelayMs = (attempt: number, baseMs: number, providerAskedMs = 0): number =>
  Math.max(Math.min(600_000, baseMs * 2 ** (attempt - 1)), Math.min(MAX_PROVIDER_WAIT_MS, providerAskedMs));

/**
 * The worker's handler for one claimed job: runs its queued turns in order, then settles
 * the job. Every state change is committed before the next step, so a worker killed at
 * any point leaves a job that the next claim can pick up and finish; and every write is
 * fenced by the lease's token (run-writes.ts), so a worker that lost its lease while
 * paused cannot change the job the next one took over.
 */
export class JobRunner {
  private readonly scrubPaths: ServerPathScrubber;
  private readonly writes: RunWrites;
  /** Which projects had a repository instruction file at their last turn in this process. */
  private readonly instructionsMemo = new InstructionsMemo();
  /** The docs check's analyses of base commits, for the next job on the same commit (bounds: base-index-cache.ts). */
  private readonly docsBases = new BaseIndexCache();
  /** The tools' worker threads, shared by every turn of this worker (idle threads stop on their own). */
  private readonly toolWorkers = new ToolWorkerPool();

  constructor(private readonly options: JobRunnerOptions) {
    this.writes = new RunWrites(options);
    this.scrubPaths = createServerPathScrubber({ dataDir: options.dataDir, workspacesDir: join(options.dataDir, 'workspaces') });
  }

  readonly handle = async (lease: Lease): Promise<void> => {
    // Workspace removals wait until the outcome is committed and announced.
    const cleanups: Array<() => Promise<void>> = [];
    try {
      await this.work(lease, cleanups);
    } catch (error) {
      if (!isLeaseLost(error)) throw error;
      // Another worker owns the job now and carries it on, or a cancel took the job's queue
      // row away: either way this run ends without a trace.
      lease.lost();
      if (await this.queueRowGone(lease)) this.options.logger.info({ jobId: lease.jobId }, 'the run stopped: its job was cancelled or deleted');
      else this.leaseLost(lease, 'a write was refused');
    } finally {
      for (const result of await Promise.allSettled(cleanups.map((cleanup) => cleanup()))) {
        if (result.status === 'rejected') this.options.logger.warn({ err: result.reason, jobId: lease.jobId }, 'could not remove a job workspace');
      }
    }
  };

  private async work(lease: Lease, cleanups: Array<() => Promise<void>>): Promise<void> {
    const { writes } = this;
    for (;;) {
      if (lease.signal.aborted) return this.stop(lease, null);
      const turn = await this.nextTurn(lease.jobId);
      if (!turn) {
        // False when a follow-up slipped in: run it too.
        if (await writes.settle(lease)) return;
        continue;
      }
      const attempts = turn.attempts + 1;
      if (attempts > this.options.maxAttempts) {
        await writes.failTurn(
          lease,
          turn,
          await this.describeError(
            lease.jobId,
            new DocwrightError('attempts_exhausted', `The run was interrupted ${turn.attempts} times (the worker stopped or crashed); giving up.`),
          ),
        );
        continue;
      }
      await writes.startTurn(lease, turn, attempts);
      try {
        const outcome = await this.execute(lease, turn, cleanups);
        // A run stopped by a budget kept its work (committed, in the pull request) and fails the turn with it.
        await writes.completeTurn(lease, turn, outcome, outcome.stopped === null ? null : await this.describeError(lease.jobId, outcome.stopped));
      } catch (error) {
        if (isLeaseLost(error)) throw error;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal aborts while the turn runs, which narrowing cannot see
        if (lease.signal.aborted) return this.stop(lease, turn);
        const failure = await this.describeError(lease.jobId, error);
        if (isRetryable(error) && attempts < this.options.maxAttempts) {
          const askedMs = error instanceof ModelError ? (error.retryAfterMs ?? 0) : 0;
          return writes.retryLater(lease, turn, attempts, failure, retryDelayMs(attempts, this.options.retryBaseMs, askedMs));
        }
        if (!isDocwrightError(error)) this.options.logger.error({ err: error, jobId: lease.jobId }, 'agent turn failed unexpectedly');
        await writes.failTurn(lease, turn, failure);
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
    const credentialValues =
      credentials === null ? [] : Object.values(credentials).filter((value): value is string => typeof value === 'string' && value.length >= 8);
    // The project's monthly token budget: none left fails the turn before any model call;
    // otherwise the run's token budget is capped at what is left.
    const monthlyBudget = project.settings.monthlyTokenBudget ?? options.monthlyTokenBudget;
    const month = monthOf(options.clock.now());
    let budgets = options.budgets;
    if (monthlyBudget !== null) {
      const used = await tokensUsedInMonth(database.db, project.id, month);
      if (used >= monthlyBudget) throw monthlyBudgetExhausted(monthlyBudget, used, month);
      if (monthlyBudget - used < budgets.maxTokens) budgets = { ...budgets, maxTokens: monthlyBudget - used };
    }
    const usageTarget = { projectId: project.id, jobId: job.id, turnId: turn.id };
    const run = executeTurn(
      {
        jobId: job.id,
        projectName: project.name,
        branch: job.branch,
        baseRef: job.ref,
        model: job.model,
        prompt: turn.prompt,
        sequence: turn.sequence,
        ...(project.settings.writePolicy ? { writePolicy: project.settings.writePolicy } : {}),
        ...(job.pull_request_options === null ? {} : { pullRequestControls: JSON.parse(job.pull_request_options) as PullRequestControls }),
        recordedPullRequest: job.pr_number,
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
        ...(options.analytics === undefined ? {} : { analytics: options.analytics(project.id) }),
        budgets,
        ...modelLimits(options.prices, job.model),
        modelRetries: options.modelRetries,
        repositoryInstructionsMaxBytes: options.repositoryInstructionsMaxBytes,
        instructionsMemo: this.instructionsMemo,
        docsBases: this.docsBases,
        toolWorkers: this.toolWorkers,
        workspacesDir: join(options.dataDir, 'workspaces'),
        clock: options.clock,
        secrets: [...options.secrets, ...credentialValues],
        signal: lease.signal,
        fence: (executor) => holdLease(database, lease, executor),
        deferCleanup: (task) => cleanups.push(task),
        onStep: async (step) => {
          await this.writes.event(
            lease,
            'step',
            {
              sequence: turn.sequence,
              step: step.stepNumber,
              text: step.text.slice(0, 2_000),
              toolCalls: step.toolCalls.map((call) => ({ tool: call.toolName, argument: call.argumentSummary, ok: call.ok })),
              totalTokens: step.totalUsage.totalTokens,
            },
            // Recorded step by step, so a turn that fails or is cancelled still counts what it used.
            (executor, now) => recordUsage(executor, usageTarget, usageDelta(options.prices, job.model, step.usage), now),
          );
        },
      },
    );
    // The cap, not the turn's own budget, stopped it: say so.
    const capped = (error: unknown): unknown =>
      error instanceof BudgetExceededError && error.budget === 'tokens' && budgets !== options.budgets && monthlyBudget !== null
        ? monthlyBudgetRanOut(monthlyBudget, month)
        : error;
    const outcome = await run;
    return outcome.stopped === null ? outcome : { ...outcome, stopped: capped(outcome.stopped) as DocwrightError };
  }

  /**
   * The run was stopped from outside: archived, cancelled, shut down, or the lease was lost.
   * A cancel has already written the outcome and removed the queue row (so the hand-back's
   * fenced write is refused); an archive leaves the row for this run to remove.
   */
  private async stop(lease: Lease, turn: JobTurnsTable | null): Promise<void> {
    if (lease.stopReason() === 'lease_lost') {
      this.leaseLost(lease, 'its renewal failed');
      return;
    }
    await this.writes.handBack(lease, turn);
  }

  private async queueRowGone(lease: Lease): Promise<boolean> {
    const row = await this.options.database.db.selectFrom('job_queue').select('job_id').where('job_id', '=', lease.jobId).executeTakeFirst();
    return row === undefined;
  }

  private leaseLost(lease: Lease, how: string): void {
    this.options.logger.warn(
      { jobId: lease.jobId, leaseToken: lease.token },
      `the job's lease passed to another worker (${how}); this run stopped without writing`,
    );
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
