import type { SignedInUser } from '../accounts/user.js';
import type { Clock } from '../core/clock.js';
import { conflict, DocwrightError, notFound } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { lockKey, writeTransaction, type Executor } from '../db/transaction.js';
import { advanceBranch } from '../git/advance-branch.js';
import type { LocalForge, LocalPullRequest } from '../git/forges/local-forge.js';
import { branchCommit, branchRef, planMerge, type MergePlan } from '../git/merge-branch.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { Project } from '../projects/project.js';
import type { Notifier } from '../queue/notifier.js';
import { buildPullRequestView, jobForBranch } from './local-pull-request-view.js';
import type { PullRequestDiffCache } from './pull-request-diff-cache.js';
import type { PullRequestView } from './pull-request-schemas.js';
import { recordWebhookEvent, wakeWebhookWorkers } from '../webhooks/webhook-events.js';

/** Who reads: the share token from prLink, and the signed-in user (either one opens the pull request). */
export interface PullRequestReader {
  token: string | undefined;
  user: SignedInUser | null;
}

export const MERGE_IDENTITY = { name: 'Docwright', email: 'docwright@docwright.invalid' };

/** A base that keeps moving under the merge is retried this often, then refused. */
const MERGE_ATTEMPTS = 3;

const notFoundPr = (number: number): DocwrightError => notFound(`No pull request #${number} in this project.`);

/**
 * The local forge's pull requests as the dashboard uses them: read (share token or signed
 * in), merge into the base branch of the project's repository, and close (signed in).
 *
 * Merge and close decide under two locks, the job's (the one a follow-up message takes) and
 * the project's pull requests' (the one the job's turn takes to update the pull request),
 * and refuse while the job is active: a turn that pushed after the merge would leave
 * commits that no pull request shows.
 */
export class LocalPullRequests {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly forge: LocalForge,
    private readonly projects: ProjectRepository,
    private readonly notifier: Notifier,
    readonly diffs: PullRequestDiffCache,
  ) {}

  /** The pull request, or null for an unknown one and a missing or wrong token alike (unless signed in). */
  async view(projectId: string, number: number, reader: PullRequestReader): Promise<PullRequestView | null> {
    const pr = reader.user !== null ? await this.forge.find(projectId, number) : await this.forge.findShared(projectId, number, reader.token);
    if (pr === null) return null;
    const project = await this.projects.find(projectId);
    if (project?.forge !== 'local') return null;
    return buildPullRequestView(this.database, this.diffs, project.repository, pr);
  }

  /**
   * Merges head into base with a merge commit, computed off to the side (merge-tree) and
   * published by moving the base ref only if it did not move meanwhile; see merge-branch.ts
   * and advance-branch.ts. A conflict answers 409 `merge_conflict` listing the files.
   *
   * `headCommit` is the head the reviewer saw: a branch that has moved since answers 409
   * `head_moved` and nothing is merged. The merge commit's second parent is that commit, and
   * the base ref moves in one git ref transaction that also verifies the head is still there,
   * so a push racing the merge either lands first (head_moved) or after the merge.
   */
  async merge(projectId: string, number: number, user: SignedInUser, headCommit: string): Promise<PullRequestView> {
    const project = await this.localProject(projectId, number);
    for (let attempt = 0; attempt < MERGE_ATTEMPTS; attempt += 1) {
      const pr = await this.forge.find(projectId, number);
      if (pr === null) throw notFoundPr(number);
      assertOpen(pr, 'merge');
      const job = await jobForBranch(this.database.db, projectId, pr.head);
      if (job?.status === 'active') throw jobActive('merged');
      const plan = await planMerge(project.repository, pr.base, pr.head, mergeMessage(pr, user), { ...MERGE_IDENTITY, at: this.clock.now() });
      if (plan.headCommit !== headCommit) throw headMoved(pr, headCommit, plan.headCommit);
      if (plan.kind === 'conflict') throw mergeConflict(pr, plan.files);
      const headRef = branchRef(pr.head, 'head');
      const merged = await this.decide(project.id, pr, job?.id ?? null, 'merge', async (executor, current) => {
        if (current.base !== pr.base || current.head !== pr.head) return false;
        if (plan.kind === 'merge') {
          const moved = await advanceBranch(
            project.repository,
            branchRef(pr.base, 'base'),
            plan.baseCommit,
            plan.mergeCommit,
            `docwright: merge pull request #${number}`,
            { ref: headRef, commit: headCommit },
          );
          // The base or the head moved: planned again, a moved head is then head_moved.
          if (moved === 'moved') return false;
        } else if ((await branchCommit(project.repository, headRef)) !== headCommit) {
          // Nothing to move for a head the base already contains, but a push since is not in it.
          return false;
        }
        await this.record(executor, current, 'merged', plan);
        return true;
      });
      if (merged) {
        // The merge recorded pull_request.merged for the branch's jobs (when an endpoint takes it).
        await wakeWebhookWorkers(this.notifier);
        return this.announce(project, number);
      }
    }
    throw conflict(`The base branch kept changing while pull request #${number} was being merged; try again.`, 'base_changed');
  }

  /** Closes without merging; the branch stays, and a follow-up message to the job reopens it. */
  async close(projectId: string, number: number): Promise<PullRequestView> {
    const project = await this.localProject(projectId, number);
    const pr = await this.forge.find(projectId, number);
    if (pr === null) throw notFoundPr(number);
    assertOpen(pr, 'close');
    const job = await jobForBranch(this.database.db, projectId, pr.head);
    await this.decide(project.id, pr, job?.id ?? null, 'close', async (executor, current) => {
      await this.record(executor, current, 'closed', null);
      return true;
    });
    return this.announce(project, number);
  }

  private async localProject(projectId: string, number: number): Promise<Project> {
    const project = await this.projects.find(projectId);
    if (project?.forge !== 'local') throw notFoundPr(number);
    return project;
  }

  /** Runs `work` on the pull request as the transaction sees it, once it is still open and its job idle. */
  private decide(
    projectId: string,
    pr: LocalPullRequest,
    jobId: string | null,
    action: 'merge' | 'close',
    work: (executor: Executor, current: LocalPullRequest) => Promise<boolean>,
  ): Promise<boolean> {
    return writeTransaction(this.database, async (executor) => {
      if (jobId !== null) await lockKey(this.database, executor, `job:${jobId}`);
      await lockKey(this.database, executor, `local-pulls:${projectId}`);
      const current = await this.forge.findIn(executor, projectId, pr.number);
      if (current === null) throw notFoundPr(pr.number);
      assertOpen(current, action);
      const job = await jobForBranch(executor, projectId, current.head);
      if (job?.status === 'active') throw jobActive(action === 'merge' ? 'merged' : 'closed');
      return work(executor, current);
    });
  }

  /** The pull request's new state, and the job's `prStatus` with it (in the same transaction). */
  private async record(executor: Executor, pr: LocalPullRequest, state: 'merged' | 'closed', plan: MergePlan | null): Promise<void> {
    const now = this.clock.now();
    await executor
      .updateTable('local_pull_requests')
      .set({
        state,
        updated_at: now,
        ...(plan === null ? {} : { merge_commit: plan.kind === 'merge' ? plan.mergeCommit : null, merged_base: plan.baseCommit, merged_head: plan.headCommit }),
      })
      .where('project_id', '=', pr.projectId)
      .where('number', '=', pr.number)
      .execute();
    const jobs = await executor
      .updateTable('jobs')
      .set({ pr_status: state, updated_at: now })
      .where('project_id', '=', pr.projectId)
      .where('branch', '=', pr.head)
      .returning(['id', 'pr_link'])
      .execute();
    if (state !== 'merged') return;
    for (const job of jobs) {
      const data = { projectId: pr.projectId, jobId: job.id, pullRequest: { number: pr.number, url: job.pr_link ?? '' } };
      await recordWebhookEvent(executor, { type: 'pull_request.merged', data }, now);
    }
  }

  private async announce(project: Project, number: number): Promise<PullRequestView> {
    // The job's prStatus changed: answered once every process has dropped its cached copy (JobRowCache).
    await this.notifier.publishAndConfirm('docwright_project_jobs', project.id);
    const pr = await this.forge.find(project.id, number);
    if (pr === null) throw notFoundPr(number);
    return buildPullRequestView(this.database, this.diffs, project.repository, pr);
  }
}

function assertOpen(pr: LocalPullRequest, action: 'merge' | 'close'): void {
  if (pr.state === 'merged')
    throw conflict(`Pull request #${pr.number} is already merged; it cannot be ${action === 'merge' ? 'merged' : 'closed'}.`, 'pull_request_merged');
  if (pr.state === 'closed')
    throw conflict(`Pull request #${pr.number} is closed; it cannot be ${action === 'merge' ? 'merged' : 'closed again'}.`, 'pull_request_closed');
}

const jobActive = (done: 'merged' | 'closed'): DocwrightError =>
  conflict(`The agent is still working on this pull request; it can be ${done} once its job is no longer active (or archive the job).`, 'job_active');

function headMoved(pr: LocalPullRequest, expected: string, actual: string): DocwrightError {
  return conflict(
    `${pr.head} has moved since it was reviewed (reviewed ${expected.slice(0, 12)}, now ${actual.slice(0, 12)}); nothing was merged. Review the new commits, then merge again.`,
    'head_moved',
  );
}

function mergeConflict(pr: LocalPullRequest, files: string[]): DocwrightError {
  return new DocwrightError(
    'merge_conflict',
    `${pr.head} cannot be merged into ${pr.base} without conflicts in ${files.length} file${files.length === 1 ? '' : 's'}; nothing was changed.`,
    {
      status: 409,
      errors: files.map((path) => ({ path, message: 'merge conflict' })),
    },
  );
}

/** Who merged goes into a trailer; an address with characters that do not belong there is left out. */
function mergeMessage(pr: LocalPullRequest, user: SignedInUser): string {
  const by = /^[^\s<>@]{1,64}@[^\s<>@]{1,255}$/.test(user.email) ? user.email : `user ${user.id.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64)}`;
  return `Merge pull request #${pr.number} from ${pr.head}\n\n${pr.title}\n\nMerged-by: ${by}\n`;
}
