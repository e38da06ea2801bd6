import type { Database } from '../db/database.js';
import type { Executor } from '../db/transaction.js';
import type { LocalPullRequest } from '../git/forges/local-forge.js';
import type { PullRequestDiffCache } from './pull-request-diff-cache.js';
import { renderPullRequestMarkdown } from './pull-request-markdown.js';
import type { PullRequestView } from './pull-request-schemas.js';

/** The job whose branch is the pull request's head (one job per branch: `docwright/{jobId}`). */
export async function jobForBranch(executor: Executor, projectId: string, branch: string): Promise<{ id: string; status: string } | null> {
  const row = await executor.selectFrom('jobs').select(['id', 'status']).where('project_id', '=', projectId).where('branch', '=', branch).executeTakeFirst();
  return row ?? null;
}

/**
 * The JSON the dashboard shows: the stored pull request, its description rendered, and its
 * diff. An open or closed pull request shows its branches as they are now; a merged one the
 * commits it was merged with, since its head is part of the base afterwards. `headCommit`
 * is the commit the diff was computed from: what the reader saw, and what a merge pins.
 */
export async function buildPullRequestView(
  database: Database,
  diffs: PullRequestDiffCache,
  repository: string,
  pr: LocalPullRequest,
): Promise<PullRequestView> {
  const [job, diff] = await Promise.all([
    jobForBranch(database.db, pr.projectId, pr.head),
    // A broken repository (moved, branch deleted) still shows the description.
    diffs.get(repository, pr.mergedBase ?? pr.base, pr.mergedHead ?? pr.head).catch(() => null),
  ]);
  return {
    number: pr.number,
    title: pr.title,
    body: pr.body,
    bodyHtml: renderPullRequestMarkdown(pr.body),
    status: pr.state,
    base: pr.base,
    head: pr.head,
    headCommit: diff?.headCommit ?? null,
    jobId: job?.id ?? null,
    files: diff?.files ?? [],
    filesTruncated: diff?.filesTruncated ?? false,
    diff: diff?.diff ?? '',
    diffTruncated: diff?.diffTruncated ?? false,
    diffAvailable: diff !== null,
    mergeCommit: pr.mergeCommit,
    createdAt: pr.createdAt,
    updatedAt: pr.updatedAt,
  };
}
