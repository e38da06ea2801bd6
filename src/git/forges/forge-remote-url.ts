import { isAbsolute, join } from 'node:path';

/**
 * Where a forge repository is cloned from. Normally a URL (`https://github.com/OWNER/NAME.git`);
 * a directory base maps the same path to bare repositories on disk, which is how tests and
 * air-gapped mirrors stand in for the forge's git endpoint.
 */
export function forgeGitUrl(gitBaseUrl: string, segments: readonly string[]): string {
  const last = segments.length - 1;
  const parts = segments.map((segment, index) => (index === last ? `${segment}.git` : segment));
  if (isAbsolute(gitBaseUrl)) return join(gitBaseUrl, ...parts);
  return `${gitBaseUrl.replace(/\/+$/, '')}/${parts.map(encodeURIComponent).join('/')}`;
}
