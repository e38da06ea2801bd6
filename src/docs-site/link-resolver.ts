import type { RedirectTable } from './redirect-table.js';
import { dirnameOf, internalTarget, normalizeSitePath, slugKey } from './site-paths.js';

/**
 * What one published site is made of, as links see it. Paths are relative to the docs
 * root, without a leading slash. Mutable: the site index updates `files` as pages come
 * and go.
 */
export interface SiteModel {
  /** Every published file: not ignored by .mintignore, inside the docs root. */
  files: Set<string>;
  /** Pages Mintlify generates from the OpenAPI specs the navigation declares. */
  generated: ReadonlySet<string>;
  /** Folders of generated pages whose spec could not be read (a URL, or too large): links into them are not judged. */
  unverifiable: readonly string[];
  redirects: RedirectTable;
  /** Folder prefixes of the default version and language, tried for links written without one. */
  defaultPrefixes: readonly string[];
  /** Folder prefixes of every version and language; a page inside one also tries it. */
  variantPrefixes: readonly string[];
}

export type LinkVerdict = { status: 'ok' | 'skipped' } | { status: 'broken'; message: string };

export interface LinkResolution {
  verdict: LinkVerdict;
  /** Slug keys whose existence decided the verdict: when a file with one of them comes or goes, the link is judged again. */
  keys: string[];
}

/** A redirect may lead to another redirect; Mintlify's edge follows them, a loop is broken. */
const MAX_REDIRECT_HOPS = 5;

/**
 * Judges a link written in `fromPage` (docs-root-relative) the way the published site
 * would answer it: the page exists, is generated from OpenAPI, is reached through a
 * redirect, or exists under the default version or language. Never touches the disk: a
 * hostile `../../etc/passwd` is judged by its text alone.
 */
export function resolveLink(site: SiteModel, fromPage: string, target: string): LinkResolution {
  const keys: string[] = [];
  const internal = internalTarget(target);
  if (internal === undefined) return { verdict: { status: 'skipped' }, keys };
  const withoutSuffix = internal.path;

  const readings: Array<{ path: string; climbed: boolean }> = [];
  if (withoutSuffix.startsWith('/')) {
    readings.push(normalizeSitePath('', withoutSuffix));
  } else {
    // Relative links: Mintlify's link checker resolves them from the page's folder; a
    // browser resolves them from the page's URL, which for `guides/index.mdx` is `/guides`
    // (one level up). Either reading that finds a page is accepted.
    readings.push(normalizeSitePath(dirnameOf(fromPage), withoutSuffix));
    if (/(?:^|\/)index\.mdx?$/i.test(fromPage)) readings.push(normalizeSitePath(dirnameOf(dirnameOf(fromPage)), withoutSuffix));
  }
  for (const reading of readings) {
    if (findPage(site, reading.path, fromPage, keys)) return { verdict: { status: 'ok' }, keys };
  }
  const first = readings[0]!;
  if (site.unverifiable.some((folder) => first.path === folder || first.path.startsWith(`${folder}/`))) return { verdict: { status: 'skipped' }, keys };
  const redirected = followRedirects(site, first.path, fromPage, target, keys);
  if (redirected !== undefined) return { verdict: redirected, keys };
  if (first.climbed) return { verdict: { status: 'broken', message: `Link "${target}" points outside the docs site.` }, keys };
  return { verdict: { status: 'broken', message: `Link "${target}" does not point to an existing page or file.` }, keys };
}

/** True when `path` is a page or file of the site, directly or under a version or language prefix. */
function findPage(site: SiteModel, path: string, fromPage: string, keys: string[]): boolean {
  // The site root is the home page, which docs.json may point anywhere.
  if (path === '') return true;
  if (exists(site, path, keys)) return true;
  // https://www.mintlify.com/docs/organize/navigation#versions and #languages: the
  // default version and language are served without their prefix, so `/quickstart`
  // written in any page reaches `v2/quickstart` or `en/quickstart`. A page inside a
  // version or language links within it the same way.
  for (const prefix of site.defaultPrefixes) {
    if (!path.startsWith(`${prefix}/`) && exists(site, `${prefix}/${path}`, keys)) return true;
  }
  for (const prefix of site.variantPrefixes) {
    if (fromPage.startsWith(`${prefix}/`) && !path.startsWith(`${prefix}/`) && exists(site, `${prefix}/${path}`, keys)) return true;
  }
  return false;
}

function exists(site: SiteModel, path: string, keys: string[]): boolean {
  const key = slugKey(path);
  keys.push(key);
  const { files, generated } = site;
  if (files.has(path) || generated.has(key)) return true;
  // `/page.md` is the Markdown rendition Mintlify serves for every page (and a link may
  // name the source file): both reach the page.
  if (key !== path) {
    // Written with a page extension, or as `…/index`.
    return key === '' || files.has(`${key}.mdx`) || files.has(`${key}.md`) || files.has(`${key}/index.mdx`) || files.has(`${key}/index.md`);
  }
  return files.has(`${path}.mdx`) || files.has(`${path}.md`) || files.has(`${path}/index.mdx`) || files.has(`${path}/index.md`) || generated.has(path);
}

/**
 * https://www.mintlify.com/docs/create/redirects: a link to a redirected path is fine
 * when the destination exists (an external destination is trusted). A redirect whose
 * destination is missing is reported as what it is.
 */
function followRedirects(site: SiteModel, path: string, fromPage: string, target: string, keys: string[]): LinkVerdict | undefined {
  // A link to `old.mdx` is published as a link to the page's URL, `/old`, which is what
  // redirect sources name.
  let current = `/${slugKey(path)}`;
  let destination: string | undefined;
  for (let hop = 0; hop < MAX_REDIRECT_HOPS; hop += 1) {
    const next = site.redirects.resolve(current);
    if (next === undefined) break;
    destination = next;
    // An external destination is trusted; one that is only an anchor or a query stays on the home page.
    const internal = internalTarget(next);
    if (internal === undefined) return { status: 'ok' };
    const reached = normalizeSitePath('', internal.path).path;
    if (findPage(site, reached, fromPage, keys)) return { status: 'ok' };
    current = `/${reached}`;
  }
  if (destination === undefined) return undefined;
  return { status: 'broken', message: `Link "${target}" is redirected to "${destination}", which does not exist.` };
}
