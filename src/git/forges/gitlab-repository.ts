import { validationFailed } from '../../core/errors.js';

export interface GitLabRepository {
  /** `group/subgroup/name`: GitLab's project path, also its URL-encodable API id. */
  path: string;
  segments: string[];
}

/** GitLab path segments: letters, digits, `_`, `.`, `-`; not starting with `-` or ending in `.git`/`.atom`. */
const SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,254}$/;

/** `https://gitlab.com/GROUP[/SUBGROUP…]/NAME` (optionally `.git`) to its project path. */
export function parseGitLabRepository(repository: string, webBaseUrl = 'https://gitlab.com'): GitLabRepository {
  const fail = (message: string): never => {
    throw validationFailed(`Invalid GitLab repository ${JSON.stringify(repository)}: ${message}.`, [{ path: 'repository', message }]);
  };
  let url: URL;
  let base: URL;
  try {
    url = new URL(repository.trim());
    base = new URL(webBaseUrl);
  } catch {
    return fail(`expected ${webBaseUrl}/GROUP/NAME`);
  }
  if (url.protocol !== base.protocol || url.host.toLowerCase() !== base.host.toLowerCase()) fail(`expected ${webBaseUrl}/GROUP/NAME`);
  if (url.username !== '' || url.password !== '') fail('must not contain credentials');
  if (url.search !== '' || url.hash !== '') fail('must not have a query or fragment');
  const basePath = base.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${basePath}/`)) fail(`expected ${webBaseUrl}/GROUP/NAME`);
  const segments = url.pathname.slice(basePath.length + 1).replace(/\/$/, '').replace(/\.git$/i, '').split('/');
  if (segments.length < 2) fail(`expected ${webBaseUrl}/GROUP/NAME`);
  for (const segment of segments) {
    // "-" alone introduces GitLab's UI routes (…/-/tree/main), never a project path.
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..' || /\.(?:git|atom)$/i.test(segment)) fail(`"${segment}" is not a valid GitLab path segment`);
  }
  return { path: segments.join('/'), segments };
}
