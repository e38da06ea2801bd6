import { canonicalPathEncoding } from '../path-encoding.js';

/** Longer paths are cut here: real pages never need more, and unbounded keys bloat storage. */
export const MAX_PATH_LENGTH = 1024;

const ABSOLUTE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * Turns a logged request target into the page key analytics counts by: the path of an
 * absolute URL, without query string and fragment, in the canonical percent-encoding the
 * server also applies (../path-encoding.ts: readable, but `%20` and other invisible
 * characters stay encoded),
 * with duplicate slashes collapsed and `.`/`..` segments resolved, capped at
 * MAX_PATH_LENGTH. Returns undefined for targets that are not paths (`*`, `host:443`).
 * Case and trailing slashes are kept: servers differ on whether they matter.
 * Idempotent: normalizing a normalized path returns it unchanged.
 */
export function normalizePath(target: string): string | undefined {
  let path = target;
  if (ABSOLUTE_URL.test(path)) {
    const authorityStart = path.indexOf('://') + 3;
    const authorityEnd = path.slice(authorityStart).search(/[/?#]/);
    path = authorityEnd < 0 || path.charAt(authorityStart + authorityEnd) !== '/' ? '/' : path.slice(authorityStart + authorityEnd);
  }
  const cut = firstIndexOf(path, '?', '#');
  if (cut >= 0) path = path.slice(0, cut);
  if (!path.startsWith('/')) return undefined;

  path = canonicalPathEncoding(path);
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  if (path.includes('/.')) path = removeDotSegments(path);
  return capLength(path);
}

function firstIndexOf(text: string, first: string, second: string): number {
  const a = text.indexOf(first);
  const b = text.indexOf(second);
  if (a < 0) return b;
  if (b < 0) return a;
  return Math.min(a, b);
}

/** RFC 3986 section 5.2.4, on a path that already starts with `/` and has no empty segments. */
function removeDotSegments(path: string): string {
  const segments = path.split('/');
  const output: string[] = [];
  for (let index = 1; index < segments.length; index++) {
    const segment = segments[index] ?? '';
    const isLast = index === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..') output.pop();
      // "/a/b/.." names the directory "/a/", so the trailing slash survives.
      if (isLast) output.push('');
      continue;
    }
    output.push(segment);
  }
  return `/${output.join('/')}`;
}

function capLength(path: string): string {
  if (path.length <= MAX_PATH_LENGTH) return path;
  let end = MAX_PATH_LENGTH;
  const code = path.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  // Nor inside a %XX escape, which would leave a stray "%" or "%X".
  const percent = path.lastIndexOf('%', end - 1);
  if (percent >= 0 && percent > end - 3) end = percent;
  const capped = path.slice(0, end);
  // Cutting "/..x" to "/.." would leave a dot segment a second normalization resolves.
  return capped.endsWith('/.') || capped.endsWith('/..') ? removeDotSegments(capped) : capped;
}
