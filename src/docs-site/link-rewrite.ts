import { dirnameOf, internalTarget, normalizeSitePath, slugKey } from './site-paths.js';

const PAGE_EXTENSION = /\.mdx?$/i;

/** Where an internal link points, as a docs-root-relative slug key, with what to keep when rewriting it. */
export interface LinkedPath {
  key: string;
  /** The docs-root-relative path as written (normalised). */
  path: string;
  /** `?query#anchor`, kept as written. */
  suffix: string;
  absolute: boolean;
}

/** The page or file an internal link in `fromPage` names directly (no redirect, no version prefix); undefined for external links and anchors. */
export function linkedPath(fromPage: string, target: string): LinkedPath | undefined {
  const internal = internalTarget(target);
  if (internal === undefined) return undefined;
  const absolute = internal.path.startsWith('/');
  const { path } = normalizeSitePath(absolute ? '' : dirnameOf(fromPage), internal.path);
  return { key: slugKey(path), path, suffix: internal.suffix, absolute };
}

/**
 * The link text that reaches `newPath` (docs-root-relative file) from `fromPage`, in the
 * style of `original`: root-absolute stays absolute, relative stays relative, an
 * extension stays only if the original had one, and the query and anchor are kept.
 */
export function rewrittenTarget(fromPage: string, original: LinkedPath, originalTarget: string, newPath: string): string {
  const withExtension = PAGE_EXTENSION.test(originalTarget.trim().replace(/[?#].*$/s, ''));
  const destination = withExtension ? newPath : slugKey(newPath);
  let text: string;
  if (original.absolute) {
    text = `/${destination}`;
  } else {
    const from = dirnameOf(fromPage)
      .split('/')
      .filter((segment) => segment !== '');
    const to = destination.split('/').filter((segment) => segment !== '');
    let common = 0;
    while (common < from.length && common < to.length - 1 && from[common] === to[common]) common += 1;
    const up = from.length - common;
    const rest = to.slice(common).join('/');
    text = up === 0 ? (originalTarget.trim().startsWith('./') ? `./${rest}` : rest) : `${'../'.repeat(up)}${rest}`;
    if (text === '') text = '.';
  }
  return encodeURI(text) + original.suffix;
}
