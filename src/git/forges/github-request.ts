import { Octokit } from '@octokit/rest';
import { isDocwrightError } from '../../core/errors.js';
import { forgeHttpError, forgeUnreachable } from './forge-errors.js';
import { forgeFetch } from './forge-fetch.js';

const gitHubFetch = forgeFetch('GitHub');

/** Every GitHub client of Docwright: redirects stay on the API's origin (see forgeFetch). */
export function createOctokit(options: { auth: string; baseUrl: string; userAgent: string }): Octokit {
  return new Octokit({ ...options, request: { fetch: gitHubFetch } });
}

/**
 * What Octokit throws when GitHub answered with an error status (its RequestError),
 * recognised by shape. Octokit also reports network failures as RequestError, with status
 * 500 but no `response`; those are not answers from GitHub.
 */
export interface GitHubHttpFailure {
  status: number;
  response: { data?: unknown };
}

export function isGitHubHttpFailure(error: unknown): error is GitHubHttpFailure {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { name?: unknown }).name === 'HttpError' &&
    typeof (error as { status?: unknown }).status === 'number' &&
    typeof (error as { response?: unknown }).response === 'object' &&
    (error as { response?: unknown }).response !== null
  );
}

/** GitHub's error body: `message`, plus `errors[].message` for validation failures. */
export function gitHubErrorMessages(failure: GitHubHttpFailure): string[] {
  const data = failure.response.data;
  if (typeof data !== 'object' || data === null) return [];
  const messages: string[] = [];
  const top = (data as { message?: unknown }).message;
  if (typeof top === 'string') messages.push(top);
  const errors = (data as { errors?: unknown }).errors;
  if (Array.isArray(errors)) {
    for (const entry of errors) {
      if (typeof entry === 'string') messages.push(entry);
      else if (typeof entry === 'object' && entry !== null) {
        const { message, field, code } = entry as { message?: unknown; field?: unknown; code?: unknown };
        if (typeof message === 'string') messages.push(message);
        else if (typeof field === 'string' && typeof code === 'string') messages.push(`${field} ${code}`);
      }
    }
  }
  return messages;
}

/**
 * One GitHub API call with a deadline, every failure mapped to a DocwrightError. `secrets`
 * are masked in whatever GitHub or the network layer says.
 */
export async function callGitHub<T>(action: string, secrets: readonly string[], call: (signal: AbortSignal) => Promise<T>, timeoutMs: number): Promise<T> {
  try {
    return await call(AbortSignal.timeout(timeoutMs));
  } catch (error) {
    throw toForgeError(action, secrets, error);
  }
}

export function toForgeError(action: string, secrets: readonly string[], error: unknown): Error {
  if (isDocwrightError(error)) return error;
  // Octokit wraps whatever its fetch threw (a refused redirect) in a RequestError.
  const cause = typeof error === 'object' && error !== null ? (error as { cause?: unknown }).cause : undefined;
  if (isDocwrightError(cause)) return cause;
  if (isGitHubHttpFailure(error)) {
    return forgeHttpError('GitHub', action, error.status, gitHubErrorMessages(error).join('; '), secrets);
  }
  return forgeUnreachable('GitHub', action, error, secrets);
}
