import { repositoryUrlSegments } from './repository-url.js';

export interface GitLabRepository {
  /** `group/subgroup/name`: GitLab's project path, also its URL-encodable API id. */
  path: string;
  segments: string[];
}

/** GitLab path segments: letters, digits, `_`, `.`, `-`; not starting with `-` or ending in `.git`/`.atom`. */
const SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,254}$/;

/** `https://gitlab.com/GROUP[/SUBGROUP…]/NAME` (optionally `.git`) to its project path. */
export function parseGitLabRepository(repository: string, webBaseUrl = 'https://gitlab.com'): GitLabRepository {
  const { segments: raw, fail } = repositoryUrlSegments(repository, webBaseUrl, 'GitLab', 'GROUP/NAME');
  const segments = raw
    .join('/')
    .replace(/\.git$/i, '')
    .split('/');
  if (segments.length < 2) fail(`expected ${webBaseUrl}/GROUP/NAME`);
  for (const segment of segments) {
    // "-" alone introduces GitLab's UI routes (…/-/tree/main), never a project path.
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..' || /\.(?:git|atom)$/i.test(segment))
      fail(`"${segment}" is not a valid GitLab path segment`);
  }
  return { path: segments.join('/'), segments };
}
