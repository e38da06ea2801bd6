import type { Octokit } from '@octokit/rest';
import type { MergeMethod } from './forge.js';
import { redactSecrets } from '../redact.js';
import { toForgeError } from './github-request.js';

/**
 * GitHub's REST API cannot enable auto-merge; its GraphQL mutation can, by the pull
 * request's node id. `mergeMethod` is left out unless asked for, so GitHub uses its own default.
 */
export const ENABLE_AUTO_MERGE_MUTATION = `mutation EnableAutoMerge($pullRequestId: ID!, $mergeMethod: PullRequestMergeMethod) {
  enablePullRequestAutoMerge(input: {pullRequestId: $pullRequestId, mergeMethod: $mergeMethod}) {
    pullRequest { number autoMergeRequest { mergeMethod enabledAt } }
  }
}`;

/** What GraphQL errors say when the mutation was refused (Octokit's GraphqlResponseError). */
function graphqlMessages(error: unknown): string[] | null {
  if (typeof error !== 'object' || error === null || (error as { name?: unknown }).name !== 'GraphqlResponseError') return null;
  const errors = (error as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((entry) => (typeof entry === 'object' && entry !== null ? String((entry as { message?: unknown }).message) : String(entry)));
}

/** Why GitHub refuses most often, in words that say what to change. */
function hint(messages: readonly string[]): string {
  const text = messages.join(' ');
  if (/auto.?merge is not allowed/i.test(text)) return ' Allow auto-merge in the repository settings (General → Pull Requests).';
  if (/clean status/i.test(text)) {
    return ' Nothing the base branch requires is pending, so auto-merge has nothing to wait for: add a branch protection rule or ruleset that requires checks or reviews. The pull request is left open for review.';
  }
  return '';
}

/**
 * Enables auto-merge on a pull request. Returns null when it is on, else a warning: a
 * refusal leaves the pull request open, and the job's work stands either way.
 */
export async function enableGitHubAutoMerge(
  octokit: Octokit,
  target: { nodeId: string; number: number; repository: string; mergeMethod: MergeMethod | undefined },
  secrets: readonly string[],
  timeoutMs: number,
): Promise<string | null> {
  const action = `enabling auto-merge on pull request #${target.number} of ${target.repository}`;
  try {
    await octokit.graphql(ENABLE_AUTO_MERGE_MUTATION, {
      pullRequestId: target.nodeId,
      ...(target.mergeMethod === undefined ? {} : { mergeMethod: target.mergeMethod.toUpperCase() }),
      request: { signal: AbortSignal.timeout(timeoutMs) },
    });
    return null;
  } catch (error) {
    const messages = graphqlMessages(error);
    if (messages !== null) return redactSecrets(`GitHub refused ${action}: ${messages.join('; ')}.${hint(messages)}`, secrets);
    const failure = toForgeError(action, secrets, error);
    return failure.message;
  }
}
