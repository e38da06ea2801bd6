import type { Answer, FakeMergeRequest, RecordedGitLabRequest } from './fake-gitlab-server.js';

export interface FakeGitLabUser {
  id: number;
  username: string;
}

/**
 * Review settings of a merge request the way GitLab applies them: labels (a comma-separated
 * string or an array), reviewer ids (unknown ids and users who may not review are dropped
 * silently, as GitLab filters them), and the draft flag, which follows the title prefix.
 */
export interface ReviewContext {
  users: readonly FakeGitLabUser[];
  /** Usernames who may review; undefined = every user. */
  members: readonly string[] | undefined;
  htmlBase: string;
}

/** GitLab's draft title prefixes (Gitlab::Regex.merge_request_draft). */
const DRAFT = /^\s*(?:\[draft\]|\(draft\)|draft:)/i;

const list = (value: unknown): string[] =>
  (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : []).map((label) => label.trim()).filter(Boolean);

function renderUser(user: FakeGitLabUser, htmlBase: string): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    name: user.username,
    state: 'active',
    locked: false,
    avatar_url: null,
    web_url: `${htmlBase}/${user.username}`,
  };
}

function reviewersFrom(value: unknown, context: ReviewContext): Array<Record<string, unknown>> {
  const ids = Array.isArray(value) ? value.map(Number) : typeof value === 'string' ? value.split(',').map(Number) : [];
  return context.users
    .filter((user) => ids.includes(user.id))
    .filter((user) => context.members === undefined || context.members.includes(user.username))
    .map((user) => renderUser(user, context.htmlBase));
}

/** Applies the review fields of a create (POST) or update (PUT) body to the merge request. */
export function applyReviewFields(mergeRequest: FakeMergeRequest, body: Record<string, unknown>, context: ReviewContext): void {
  mergeRequest.draft = DRAFT.test(mergeRequest.title);
  mergeRequest.work_in_progress = mergeRequest.draft;
  if (body.labels !== undefined) mergeRequest.labels = [...new Set(list(body.labels))];
  if (body.add_labels !== undefined) mergeRequest.labels = [...new Set([...(mergeRequest.labels as string[]), ...list(body.add_labels)])];
  if (body.remove_labels !== undefined) {
    const removed = list(body.remove_labels);
    mergeRequest.labels = (mergeRequest.labels as string[]).filter((label) => !removed.includes(label));
  }
  if (body.reviewer_ids !== undefined) mergeRequest.reviewers = reviewersFrom(body.reviewer_ids, context);
}

/** GET /users?username=NAME: the user whose username matches case-insensitively, or []. */
export function findUsers(request: RecordedGitLabRequest, context: ReviewContext): Answer {
  const username = request.query.username;
  const users = username === undefined ? context.users : context.users.filter((user) => user.username.toLowerCase() === username.toLowerCase());
  return { status: 200, body: users.map((user) => renderUser(user, context.htmlBase)) };
}

/**
 * PUT /projects/:id/merge_requests/:iid/merge. With `auto_merge` (17.11+) or
 * `merge_when_pipeline_succeeds` (before) the merge waits for the running pipeline;
 * without, it merges now. `checksPending` is how many calls still find GitLab computing
 * mergeability (it answers 405 meanwhile, as right after a merge request is opened).
 */
export function mergeMergeRequest(mergeRequest: FakeMergeRequest, body: Record<string, unknown>, state: { checksPending: number }, timestamp: string): Answer {
  if (mergeRequest.state !== 'opened' || mergeRequest.draft === true) return { status: 405, body: { message: '405 Method Not Allowed' } };
  if (state.checksPending > 0) {
    state.checksPending -= 1;
    return { status: 405, body: { message: '405 Method Not Allowed' } };
  }
  if (typeof body.sha === 'string' && body.sha !== mergeRequest.sha) {
    return { status: 409, body: { message: `SHA does not match HEAD of source branch: ${String(mergeRequest.sha)}` } };
  }
  if (body.squash === true) mergeRequest.squash = true;
  if (body.auto_merge === true || body.merge_when_pipeline_succeeds === true) {
    mergeRequest.merge_when_pipeline_succeeds = true;
    mergeRequest.merge_user = mergeRequest.author;
    return { status: 200, body: mergeRequest };
  }
  mergeRequest.state = 'merged';
  mergeRequest.merged_at = timestamp;
  return { status: 200, body: mergeRequest };
}
