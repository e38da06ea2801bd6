import { validationFailed } from '../../core/errors.js';

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
  const fail = (message: string): never => {
    throw validationFailed(`Invalid GitHub repository ${JSON.stringify(repository)}: ${message}.`, [{ path: 'repository', message }]);
  };
  let url: URL;
  let base: URL;
  try {
    url = new URL(repository.trim());
    base = new URL(webBaseUrl);
  } catch {
    return fail(`expected ${webBaseUrl}/OWNER/NAME`);
  }
  if (url.protocol !== base.protocol || url.host.toLowerCase() !== base.host.toLowerCase()) fail(`expected ${webBaseUrl}/OWNER/NAME`);
  if (url.username !== '' || url.password !== '') fail('must not contain credentials');
  if (url.search !== '' || url.hash !== '') fail('must not have a query or fragment');
  const basePath = base.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${basePath}/`)) fail(`expected ${webBaseUrl}/OWNER/NAME`);
  const segments = url.pathname.slice(basePath.length + 1).replace(/\/$/, '').split('/');
  if (segments.length !== 2) fail(`expected ${webBaseUrl}/OWNER/NAME`);
  const owner = segments[0] ?? '';
  const name = (segments[1] ?? '').replace(/\.git$/i, '');
  if (!OWNER.test(owner)) fail(`"${owner}" is not a valid GitHub owner`);
  if (!NAME.test(name) || name === '.' || name === '..') fail(`"${name}" is not a valid GitHub repository name`);
  return { owner, name };
}
