import { isAbsolute, resolve } from 'node:path';
import { validationFailed } from '../core/errors.js';

/**
 * A remote must be a URL or a path git understands, never something git could read as an
 * option, and never carry a password (it would be stored in `.git/config`).
 */
export function validateRemoteUrl(url: string, field = 'remoteUrl'): string {
  const problem = remoteUrlProblem(url);
  if (problem !== null) {
    throw validationFailed(`Invalid git remote for ${field}: ${problem}.`, [{ path: field, message: problem }]);
  }
  // git runs in other directories than ours, so a relative path is pinned to where it was meant.
  return isLocalPath(url) && !isAbsolute(url) ? resolve(url) : url;
}

/** Git treats anything that is neither `scheme://…` nor scp-like `host:path` as a local path. */
export function isLocalPath(remoteUrl: string): boolean {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(remoteUrl)) return false;
  const colon = remoteUrl.indexOf(':');
  const slash = remoteUrl.indexOf('/');
  return colon === -1 || (slash !== -1 && slash < colon);
}

function remoteUrlProblem(url: string): string | null {
  if (url.length === 0) return 'must not be empty';
  if (url.startsWith('-')) return 'must not start with "-"';
  if (/[\u0000-\u001f\u007f]/.test(url)) return 'must not contain control characters';
  // `transport::address` runs a remote helper of the caller's choosing.
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(url)) return 'must not use the "transport::address" form';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!['https', 'http', 'ssh', 'git', 'file'].includes(scheme)) return `unsupported scheme "${scheme}"`;
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(url)) return 'must not contain a password; credentials are passed separately';
  }
  return null;
}
