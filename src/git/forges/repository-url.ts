import { validationFailed } from '../../core/errors.js';

/**
 * The checks every forge applies to a project's repository URL: same scheme and host as
 * the forge's web base, no credentials, no query or fragment, a path below the base.
 * Returns the path segments after the base (trailing slash removed) and the forge's own
 * `fail` for the checks that follow, so every message names the forge and the repository.
 */
export function repositoryUrlSegments(
  repository: string,
  webBaseUrl: string,
  forge: 'GitHub' | 'GitLab',
  expected: string,
): { segments: string[]; fail: (message: string) => never } {
  const fail = (message: string): never => {
    throw validationFailed(`Invalid ${forge} repository ${JSON.stringify(repository)}: ${message}.`, [{ path: 'repository', message }]);
  };
  const shape = `expected ${webBaseUrl}/${expected}`;
  let url: URL;
  let base: URL;
  try {
    url = new URL(repository.trim());
    base = new URL(webBaseUrl);
  } catch {
    return fail(shape);
  }
  if (url.protocol !== base.protocol || url.host.toLowerCase() !== base.host.toLowerCase()) fail(shape);
  if (url.username !== '' || url.password !== '') fail('must not contain credentials');
  if (url.search !== '' || url.hash !== '') fail('must not have a query or fragment');
  const basePath = base.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${basePath}/`)) fail(shape);
  return {
    segments: url.pathname
      .slice(basePath.length + 1)
      .replace(/\/$/, '')
      .split('/'),
    fail,
  };
}
