import type { Clock } from '../core/clock.js';
import { badRequest, conflict, validationFailed, type FieldError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Database } from '../db/database.js';
import { settleLostCommit } from '../db/lost-commit.js';
import { lockKey, writeTransaction, type Executor } from '../db/transaction.js';
import type { Project } from '../projects/project.js';
import type { MergeMethod, PullRequestControls } from '../git/forges/forge.js';
import { lockQueueRow } from '../queue/lease-fence.js';
import type { Notifier } from '../queue/notifier.js';
import type { RateLimitState, SlidingWindowLimiter } from '../rate-limit/sliding-window-limiter.js';
import { appendJobEvent } from './job-events.js';
import { cancelJob } from './cancel-job.js';
import { jobFromRow, type Job, type JobStatus } from './job.js';
import type { JobRepository } from './job-repository.js';
import { acceptsMessages, assertTransition, NEW_JOB_STATUS } from './job-state.js';
import { jobEventData, recordWebhookEvent, wakeWebhookWorkers } from '../webhooks/webhook-events.js';

export interface JobServiceOptions {
  database: Database;
  clock: Clock;
  notifier: Notifier;
  limiter: SlidingWindowLimiter;
  repository: JobRepository;
  defaultModel: string;
  defaultRateLimit: number;
}

export interface JobCommandResult {
  job: Job;
  rateLimit: RateLimitState;
}

export interface JobCommandOptions {
  /**
   * Runs in the command's transaction after its writes, with the job as it will be
   * answered: what it writes commits with the job or not at all (the Idempotency-Key's
   * stored response).
   */
  withinTransaction?: (executor: Executor, job: Job) => Promise<void>;
}

export const branchForJob = (jobId: string): string => `docwright/${jobId}`;

/** The optional controls of create (job-schemas.ts validates them). */
export interface JobCreateSettings {
  ref?: string;
  branchName?: string;
  draft?: boolean;
  reviewers?: string[];
  labels?: string[];
  autoMerge?: boolean;
  mergeMethod?: MergeMethod;
}

/** What the forge does with the pull request when it opens it, stored with the job. */
export type PullRequestOptions = PullRequestControls;

/**
 * The controls the project's forge can apply. What depends on the forge is checked here,
 * before anything is stored: the local forge has no reviewers, labels or CI; GitLab has no
 * team reviewers, takes labels comma-separated and has no rebase merge method.
 */
function pullRequestOptions(project: Project, settings: JobCreateSettings): PullRequestOptions | null {
  const { draft, reviewers, labels, autoMerge, mergeMethod } = settings;
  const options: PullRequestOptions = {
    ...(draft === true ? { draft } : {}),
    ...(reviewers !== undefined && reviewers.length > 0 ? { reviewers: [...new Set(reviewers)] } : {}),
    ...(labels !== undefined && labels.length > 0 ? { labels: [...new Set(labels)] } : {}),
    ...(autoMerge === true ? { autoMerge, ...(mergeMethod === undefined ? {} : { mergeMethod }) } : {}),
  };
  if (Object.keys(options).length === 0) return null;
  if (project.forge === 'local') {
    if (options.autoMerge) {
      throw badRequest(
        'auto_merge_unsupported',
        'autoMerge needs a GitHub or GitLab project: the local forge runs no checks to wait for; merge its pull requests from the dashboard.',
      );
    }
    throw badRequest('pull_request_options_unsupported', 'draft, reviewers and labels need a GitHub or GitLab project; the local forge has none of them.');
  }
  if (project.forge === 'gitlab') {
    const errors: FieldError[] = [
      ...(options.reviewers ?? [])
        .map((reviewer, index) => ({ reviewer, index }))
        .filter(({ reviewer }) => reviewer.includes('/'))
        .map(({ index }) => ({ path: `reviewers.${index}`, message: 'must be a GitLab username: team reviewers (org/team) are GitHub only' })),
      ...(options.labels ?? [])
        .map((label, index) => ({ label, index }))
        .filter(({ label }) => label.includes(','))
        .map(({ index }) => ({ path: `labels.${index}`, message: 'must not contain a comma on GitLab (its API takes labels comma-separated)' })),
      ...(options.mergeMethod === 'rebase'
        ? [{ path: 'mergeMethod', message: "must be merge or squash on GitLab: the project's merge method setting decides about rebasing" }]
        : []),
    ];
    if (errors.length > 0) throw validationFailed('The pull request options do not fit a GitLab project.', errors);
  }
  return options;
}

/**
 * The writes of the job API. A job, its first turn and its queue row are committed in one
 * transaction together with the rate-limit charge: an accepted job always has its work
 * queued, and a request that fails charges nothing. When the connection drops while that
 * transaction ends, the database is asked whether it committed (`settleLostCommit`), so a
 * caller is never told "failed" about a job that exists.
 */
export class JobService {
  constructor(private readonly options: JobServiceOptions) {}

  rateLimitFor(project: Project): number {
    return project.settings.rateLimitPerHour ?? this.options.defaultRateLimit;
  }

  async create(project: Project, prompt: string, options: JobCommandOptions = {}, settings: JobCreateSettings = {}): Promise<JobCommandResult> {
    const { database, clock, limiter } = this.options;
    const id = newId();
    const prOptions = pullRequestOptions(project, settings);
    const branch = settings.branchName === undefined ? branchForJob(id) : `docwright/${settings.branchName}`;
    const write = writeTransaction(database, async (executor) => {
      if (settings.branchName !== undefined) {
        // One branch, one job: another job pushing to it would take over its pull request.
        await lockKey(database, executor, `branch:${project.repository}:${branch}`);
        const taken = await executor
          .selectFrom('jobs')
          .select('id')
          .where('repository', '=', project.repository)
          .where('branch', '=', branch)
          .executeTakeFirst();
        if (taken) throw conflict(`Branch ${branch} is already used by job ${taken.id} of this repository; choose another branchName.`, 'branch_taken');
      }
      const rateLimit = await limiter.consume(executor, project.id, this.rateLimitFor(project));
      const now = clock.now();
      const row = {
        id,
        project_id: project.id,
        status: NEW_JOB_STATUS,
        model: project.settings.model ?? this.options.defaultModel,
        repository: project.repository,
        ref: settings.ref ?? project.ref,
        branch,
        pr_number: null,
        pr_link: null,
        pr_status: null,
        error_code: null,
        error_message: null,
        created_at: now,
        updated_at: now,
        archived_at: null,
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        cache_write_tokens: 0,
        unresolved_problems: 0,
        pull_request_options: prOptions === null ? null : JSON.stringify(prOptions),
        cost_microusd: null,
      };
      await executor.insertInto('jobs').values(row).execute();
      await this.insertTurn(executor, id, newId(), 1, prompt, now);
      await executor
        .insertInto('job_queue')
        .values({ job_id: id, project_id: row.project_id, run_at: now, locked_by: null, locked_until: null, created_at: now })
        .execute();
      await appendJobEvent(executor, id, 'job.created', { model: row.model, source: { repository: row.repository, ref: row.ref } }, now);
      await appendJobEvent(executor, id, 'turn.queued', { sequence: 1, prompt }, now);
      const job = jobFromRow(row);
      await options.withinTransaction?.(executor, job);
      return { job, rateLimit };
    });
    const result = await write.catch((error: unknown) =>
      this.settle(project, error, async (executor) => {
        const row = await executor.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
        return row && jobFromRow(row);
      }),
    );
    await this.options.notifier.publish('docwright_jobs', result.job.id);
    await this.options.notifier.publish('docwright_job_events', result.job.id);
    await this.options.notifier.publish('docwright_project_jobs', project.id);
    return result;
  }

  /**
   * A follow-up: queued behind the running turn of an active job, or re-activating a
   * completed or failed one. Archived jobs refuse with 409, before anything is charged.
   */
  async message(project: Project, jobId: string, prompt: string, options: JobCommandOptions = {}): Promise<JobCommandResult> {
    const { database, clock, limiter, repository } = this.options;
    const turnId = newId();
    const write = writeTransaction(database, async (executor) => {
      await lockKey(database, executor, `job:${jobId}`);
      const row = await repository.getRow(executor, project.id, jobId);
      const from = row.status as JobStatus;
      if (!acceptsMessages(from)) {
        throw conflict('This job is archived and accepts no more messages; create a new job instead.', 'job_archived');
      }
      // The branch is part of the base now: more commits on it would have no pull request
      // to review them. A closed pull request is reopened by the follow-up's update instead.
      if (row.pr_status === 'merged') {
        throw conflict("This job's pull request was merged; create a new job for further changes.", 'pull_request_merged');
      }
      const rateLimit = await limiter.consume(executor, project.id, this.rateLimitFor(project));
      const now = clock.now();
      const last = await executor
        .selectFrom('job_turns')
        .select(({ fn }) => fn.max('sequence').as('sequence'))
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      const sequence = Number(last?.sequence ?? 0) + 1;
      await this.insertTurn(executor, jobId, turnId, sequence, prompt, now);
      await executor
        .insertInto('job_queue')
        .values({ job_id: jobId, project_id: project.id, run_at: now, locked_by: null, locked_until: null, created_at: now })
        .onConflict((conflictClause) => conflictClause.column('job_id').doNothing())
        .execute();
      assertTransition(jobId, from, 'active');
      await executor.updateTable('jobs').set({ status: 'active', error_code: null, error_message: null, updated_at: now }).where('id', '=', jobId).execute();
      await appendJobEvent(executor, jobId, 'turn.queued', { sequence, prompt }, now);
      const job = jobFromRow(await repository.getRow(executor, project.id, jobId));
      await options.withinTransaction?.(executor, job);
      return { job, rateLimit };
    });
    const result = await write.catch((error: unknown) =>
      this.settle(project, error, async (executor) => {
        const turn = await executor.selectFrom('job_turns').select('id').where('id', '=', turnId).executeTakeFirst();
        return turn && jobFromRow(await repository.getRow(executor, project.id, jobId));
      }),
    );
    await this.options.notifier.publish('docwright_jobs', jobId);
    // Answered once every process has dropped its cached copy of the job (JobRowCache).
    await this.options.notifier.publishAndConfirm('docwright_job_events', jobId);
    await this.options.notifier.publish('docwright_project_jobs', project.id);
    return result;
  }

  /** Archiving is idempotent; a running turn is told to stop and its queued turns are dropped. */
  async archive(project: Project, jobId: string): Promise<Job> {
    const { database, clock, repository } = this.options;
    let webhookMessages = 0;
    const job = await writeTransaction(database, async (executor) => {
      await lockKey(database, executor, `job:${jobId}`);
      const row = await repository.getRow(executor, project.id, jobId);
      if (row.status === 'archived') return jobFromRow(row);
      assertTransition(jobId, row.status as JobStatus, 'archived');
      const now = clock.now();
      // Before the turns, in the order a run's fenced writes take them (lease-fence.ts).
      await lockQueueRow(database, executor, jobId);
      await executor.updateTable('jobs').set({ status: 'archived', archived_at: now, updated_at: now }).where('id', '=', jobId).execute();
      await executor
        .updateTable('job_turns')
        .set({ status: 'cancelled', finished_at: now, error_code: 'cancelled', error_message: 'The job was archived.' })
        .where('job_id', '=', jobId)
        .where('status', 'in', ['queued', 'running'])
        .execute();
      // An unlocked queue row goes now; a locked one is removed by its worker once it has stopped.
      await executor.deleteFrom('job_queue').where('job_id', '=', jobId).where('locked_by', 'is', null).execute();
      await appendJobEvent(executor, jobId, 'job.archived', {}, now);
      const archived = await repository.getRow(executor, project.id, jobId);
      webhookMessages = await recordWebhookEvent(executor, { type: 'job.archived', data: jobEventData(archived) }, now);
      return jobFromRow(archived);
    });
    await this.options.notifier.publish('docwright_job_control', jobId);
    await this.options.notifier.publishAndConfirm('docwright_job_events', jobId);
    await this.options.notifier.publish('docwright_project_jobs', project.id);
    await wakeWebhookWorkers(this.options.notifier, webhookMessages);
    return job;
  }

  /** Stops the running turn and drops queued ones: the job becomes failed with `cancelled` (cancel-job.ts). 409 unless active. */
  async cancel(project: Project, jobId: string): Promise<Job> {
    return cancelJob(this.options, project.id, jobId);
  }

  /** A command whose connection was lost: its result if it committed after all, else its error. */
  private async settle(project: Project, error: unknown, find: (executor: Executor) => Promise<Job | undefined>): Promise<JobCommandResult> {
    const { database, limiter } = this.options;
    return settleLostCommit(
      database,
      error,
      (executor) => limiter.lock(executor, project.id),
      async (executor) => {
        const job = await find(executor);
        return job && { job, rateLimit: await limiter.peek(project.id, this.rateLimitFor(project), executor) };
      },
    );
  }

  private async insertTurn(executor: Executor, jobId: string, turnId: string, sequence: number, prompt: string, now: number): Promise<void> {
    await executor
      .insertInto('job_turns')
      .values({
        id: turnId,
        job_id: jobId,
        sequence,
        prompt,
        status: 'queued',
        final_message: null,
        steps: '[]',
        files_changed: '[]',
        commit_sha: null,
        problems: '[]',
        refused_files: '[]',
        warnings: '[]',
        error_code: null,
        error_message: null,
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        cache_write_tokens: 0,
        cost_microusd: null,
        attempts: 0,
        created_at: now,
        started_at: null,
        finished_at: null,
      })
      .execute();
  }
}
