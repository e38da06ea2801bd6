import { repositoryUrlSegments } from './repository-url.js';

export interface GitHubRepository {
  owner: string;
  name: string;
}

/** GitHub's own limits: owners are 1–39 alphanumerics or inner hyphens; names use [A-Za-z0-9._-]. */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$/;
const NAME = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * `https://github.com/OWNER/NAME` (optionally with `.git` or a trailing slash) to its parts.
 * Anything else is a validation error, so a typo surfaces when the project is set up and
 * not halfway through a job.
 */
export function parseGitHubRepository(repository: string, webBaseUrl = 'https://github.com'): GitHubRepository {
  const { segments, fail } = repositoryUrlSegments(repository, webBaseUrl, 'GitHub', 'OWNER/NAME');
  if (segments.length !== 2) fail(`expected ${webBaseUrl}/OWNER/NAME`);
  const owner = segments[0] ?? '';
  const name = (segments[1] ?? '').replace(/\.git$/i, '');
  if (!OWNER.test(owner)) fail(`"${owner}" is not a valid GitHub owner`);
  if (!NAME.test(name) || name === '.' || name === '..') fail(`"${name}" is not a valid GitHub repository name`);
  return { owner, name };
}
