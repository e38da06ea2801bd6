/** Page files Mintlify builds: Markdown and MDX (https://www.mintlify.com/docs/organize/pages). */
export const PAGE_FILE = /\.mdx?$/i;

/** `https:`, `mailto:`, `tel:` …: a link or reference to something that is not a file of the site. */
export const URL_SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/** An internal link's path (decoded, `?query#anchor` cut off and kept apart), as written. */
export interface InternalTarget {
  path: string;
  suffix: string;
}

/**
 * The path an internal link names; undefined for external URLs, protocol-relative
 * `//host` links, pure `#anchors` and links with no path at all. A malformed escape
 * leaves the path as written.
 */
export function internalTarget(target: string): InternalTarget | undefined {
  const trimmed = target.trim();
  if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//') || URL_SCHEME.test(trimmed)) return undefined;
  const cut = trimmed.search(/[?#]/);
  const written = cut === -1 ? trimmed : trimmed.slice(0, cut);
  if (written === '') return undefined;
  let path = written;
  try {
    path = decodeURI(written);
  } catch {
    // Kept as written.
  }
  return { path, suffix: cut === -1 ? '' : trimmed.slice(cut) };
}

/** Names of the Mintlify site configuration files, newest format first (docs.json replaced mint.json). */
export const SITE_CONFIG_NAMES = ['docs.json', 'mint.json'] as const;

export function isPageFile(path: string): boolean {
  return PAGE_FILE.test(path);
}

/** `docs/guides/a.mdx` → `guides/a.mdx` for docs root `docs`; the root '' is the repository root. */
export function relativeToRoot(path: string, docsRoot: string): string {
  return docsRoot === '' ? path : path.slice(docsRoot.length + 1);
}

export function joinRoot(docsRoot: string, relative: string): string {
  return docsRoot === '' ? relative : relative === '' ? docsRoot : `${docsRoot}/${relative}`;
}

export function isUnder(path: string, directory: string): boolean {
  return directory === '' || path.startsWith(`${directory}/`);
}

export function dirnameOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

export function basenameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * The URL a file is published under, relative to the docs root and without a leading
 * slash: the extension goes, and an `index` page stands for its folder
 * (https://www.mintlify.com/docs/organize/pages — "the file path is the URL"). Other files
 * (images, PDFs) keep their name. Links and their dependencies are tracked by this key.
 */
export function slugKey(path: string): string {
  // `guides/index.mdx`, `guides/index` and `guides` all name the same page.
  const withoutExtension = path.replace(PAGE_FILE, '');
  if (withoutExtension === 'index') return '';
  return withoutExtension.endsWith('/index') ? withoutExtension.slice(0, -'/index'.length) : withoutExtension;
}

/**
 * Joins and normalises like a browser resolves a URL path: `..` above the root stays at
 * the root (`climbed` says it happened), `.` and empty segments vanish.
 */
export function normalizeSitePath(base: string, relative: string): { path: string; climbed: boolean } {
  const stack: string[] = [];
  let climbed = false;
  for (const segment of [...base.split('/'), ...relative.split('/')]) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') stack.push(segment);
    else if (stack.pop() === undefined) climbed = true;
  }
  return { path: stack.join('/'), climbed };
}
