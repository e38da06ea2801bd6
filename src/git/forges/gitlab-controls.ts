import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { isDocwrightError } from '../../core/errors.js';
import type { PullRequestControls } from './forge.js';

/** One GitLab REST call; a failure is a DocwrightError whose `cause` carries GitLab's status. */
export type GitLabCall = <T = unknown>(method: string, path: string, body: unknown, action: string) => Promise<T>;

export interface GitLabMergeRequest {
  iid: number;
  title: string;
  description: string | null;
  web_url: string;
  source_branch: string;
  /** The head commit; null while GitLab is still preparing the diff. */
  sha?: string | null;
  draft?: boolean;
  /** The name before GitLab 13.x for `draft`. */
  work_in_progress?: boolean;
  reviewers?: Array<{ id: number; username: string }>;
  labels?: string[];
  merge_when_pipeline_succeeds?: boolean;
  state?: string;
}

/** GitLab's own way to make a draft on create (there is no `draft` create field before 17.x). */
const DRAFT_PREFIX = 'Draft: ';
const DRAFT_PATTERN = /^\s*(?:\[draft\]|\(draft\)|draft:|draft\s-\s|\[wip\]|wip:)/i;

export function isDraft(mergeRequest: GitLabMergeRequest): boolean {
  return mergeRequest.draft === true || mergeRequest.work_in_progress === true;
}

/** The title of a draft: GitLab's prefix unless the title already has one. */
export function draftTitle(title: string, limit: number): string {
  if (DRAFT_PATTERN.test(title)) return title;
  const prefixed = `${DRAFT_PREFIX}${title}`;
  return prefixed.length <= limit ? prefixed : `${prefixed.slice(0, limit - 1)}…`;
}

/**
 * GitLab usernames to user ids (`GET /users?username=`, which matches case-insensitively).
 * A name GitLab does not know is a warning, not a failure: the merge request stands.
 */
export interface ResolvedReviewers {
  /** Found users, once each, with the name as asked for. */
  users: Array<{ id: number; username: string }>;
  warnings: string[];
}

export async function resolveReviewers(call: GitLabCall, usernames: readonly string[]): Promise<ResolvedReviewers> {
  const warnings: string[] = [];
  const found = await Promise.all(
    usernames.map(async (username) => {
      try {
        const users = await call<Array<{ id: number; username: string }>>(
          'GET',
          `/users?${new URLSearchParams({ username }).toString()}`,
          undefined,
          `looking up the GitLab user ${username}`,
        );
        const user = users.find((candidate) => candidate.username.toLowerCase() === username.toLowerCase());
        if (user === undefined) warnings.push(`GitLab has no user named ${username}: not requested as a reviewer.`);
        return user === undefined ? null : { id: user.id, username };
      } catch (error) {
        warnings.push(error instanceof Error ? error.message : String(error));
        return null;
      }
    }),
  );
  const users = found.filter((user) => user !== null);
  return { users: users.filter((user, index) => users.findIndex((other) => other.id === user.id) === index), warnings };
}

/** Reviewers GitLab left out of the merge request it answered (not a member, or one reviewer on GitLab Free). */
export function droppedReviewers(mergeRequest: GitLabMergeRequest, requested: ResolvedReviewers['users']): string[] {
  if (mergeRequest.reviewers === undefined) return [];
  const present = new Set(mergeRequest.reviewers.map((reviewer) => reviewer.id));
  const missing = requested.filter((user) => !present.has(user.id)).map((user) => user.username);
  if (missing.length === 0) return [];
  return [
    `GitLab did not add ${missing.join(', ')} as a reviewer of !${mergeRequest.iid}: a reviewer must be able to read the project, and GitLab Free takes one reviewer.`,
  ];
}

export interface AutoMergeTiming {
  /** Attempts while GitLab still computes whether the merge request can be merged. */
  attempts: number;
  /** The wait before attempt n is n × this. */
  delayMs: number;
}

/**
 * GitLab's answer while it is still checking a new merge request (gitlab-org/gitlab#353984);
 * 406/422 "Branch cannot be merged" (conflicts) do not pass by waiting.
 */
const NOT_YET = 405;

/**
 * Sets a merge request to merge once its pipeline and checks pass. Both parameter names
 * are sent: `auto_merge` (GitLab 17.11 and later) and `merge_when_pipeline_succeeds`
 * (earlier versions; deprecated, still accepted); each version ignores the one it does not
 * know. `sha` makes GitLab merge only the commit Docwright pushed. Returns null when set,
 * else a warning: a refusal leaves the merge request open.
 */
export async function enableGitLabAutoMerge(
  call: GitLabCall,
  projectPath: string,
  mergeRequest: GitLabMergeRequest,
  controls: PullRequestControls,
  timing: AutoMergeTiming,
): Promise<string | null> {
  if (mergeRequest.merge_when_pipeline_succeeds === true) return null;
  const body = {
    auto_merge: true,
    merge_when_pipeline_succeeds: true,
    ...(typeof mergeRequest.sha === 'string' && mergeRequest.sha.length > 0 ? { sha: mergeRequest.sha } : {}),
    ...(controls.mergeMethod === 'squash' ? { squash: true } : {}),
  };
  const action = `setting !${mergeRequest.iid} to merge automatically`;
  // Right after it is opened, GitLab answers 405 until its mergeability check is done.
  const notYet = (error: unknown): boolean => (isDocwrightError(error) ? (error.cause as { status?: unknown } | undefined)?.status : undefined) === NOT_YET;
  try {
    await pRetry(() => call('PUT', `${projectPath}/merge_requests/${mergeRequest.iid}/merge`, body, action), {
      retries: Math.max(0, timing.attempts - 1),
      // The wait grows linearly (n × delayMs), which p-retry's exponential timer cannot express.
      minTimeout: 0,
      shouldRetry: ({ error }) => notYet(error),
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0 && notYet(error)) await sleep(timing.delayMs * attemptNumber);
      },
    });
    return null;
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    return `${said} Auto-merge is not set: the merge request stays open for review.`;
  }
}
