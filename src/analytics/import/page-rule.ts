/**
 * Which log records are page views. Everything else a docs site serves (scripts,
 * styles, images, fonts, search indexes, feeds, API calls, redirects, errors) is left
 * out, so unique-visitor counts mean "people and agents who read a page".
 * docs/import.md explains each choice.
 */

const PAGE_METHODS = new Set(['GET', 'HEAD']);

/** Extensions of files that are never pages. `.md`, `.mdx`, `.html` and `.htm` are pages; `.txt` is not, except `llms*.txt`. */
export const ASSET_EXTENSIONS: ReadonlySet<string> = new Set([
  // code and styles
  'css',
  'js',
  'mjs',
  'cjs',
  'map',
  'wasm',
  'scss',
  'less',
  // images
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'svg',
  'svgz',
  'ico',
  'bmp',
  'tif',
  'tiff',
  'apng',
  'heic',
  'heif',
  'cur',
  // fonts
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  // media
  'mp4',
  'webm',
  'ogg',
  'ogv',
  'oga',
  'mp3',
  'wav',
  'flac',
  'aac',
  'm4a',
  'm4v',
  'mov',
  'avi',
  'mkv',
  'm3u8',
  'ts',
  'vtt',
  'srt',
  // archives and downloads
  'zip',
  'gz',
  'tgz',
  'tar',
  'bz2',
  'xz',
  'zst',
  'br',
  '7z',
  'rar',
  'jar',
  'whl',
  'exe',
  'msi',
  'dmg',
  'pkg',
  'deb',
  'rpm',
  'apk',
  'iso',
  'bin',
  'pdf',
  'epub',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'ipynb',
  // data, feeds and manifests
  'json',
  'jsonld',
  'xml',
  'rss',
  'atom',
  'yaml',
  'yml',
  'toml',
  'csv',
  'tsv',
  'txt',
  'webmanifest',
  'manifest',
  'appcache',
  'pf_fragment',
  'pf_index',
  'pf_meta',
  'pagefind',
]);

/** Whole paths that are never pages even though some have no asset extension. */
export const NON_PAGE_PATHS: ReadonlySet<string> = new Set(['/favicon.ico', '/robots.txt', '/sitemap.xml', '/ads.txt', '/humans.txt']);

/** Root folders of static-site build output, platform endpoints and APIs. */
export const DEFAULT_SKIP_PREFIXES: readonly string[] = [
  '/_next/',
  '/static/',
  '/assets/',
  '/api/',
  '/.well-known/',
  '/_astro/',
  '/_nuxt/',
  '/_app/',
  '/_static/',
  '/_images/',
  '/_downloads/',
  '/_pagefind/',
  '/pagefind/',
  '/_mintlify/',
  '/~gitbook/',
  '/cdn-cgi/',
  '/_vercel/',
];

const SITEMAP = /^\/sitemap[^/]*\.xml(?:\.gz)?$/i;
const LLMS_TEXT = /^llms[\w.-]*\.txt$/i;

export interface PageRequest {
  method: string | undefined;
  status: number | undefined;
  /** A path (normalized or not; a query string and fragment are ignored). */
  path: string;
}

export interface PageRuleOptions {
  /** Replaces DEFAULT_SKIP_PREFIXES, e.g. without `/api/` when an API reference lives there. */
  skipPrefixes?: readonly string[];
}

/**
 * Why a request is not a page view, checked in this order (so a 404 for `/app.js` is a
 * `clientError`, not an `asset`): `method` (not GET or HEAD), `redirect` (3xx but 304),
 * `clientError` (4xx), `serverError` (5xx), `otherStatus` (1xx), `skippedPath` (a
 * well-known non-page or a skipped prefix), `asset` (by extension). `notRequest` is for
 * lines whose request is no request at all (`"-"`, TLS noise, a target that is not a path);
 * the importer decides that before this rule runs.
 */
export const NOT_PAGE_REASONS = ['asset', 'skippedPath', 'redirect', 'clientError', 'serverError', 'otherStatus', 'method', 'notRequest'] as const;

export type NotPageReason = (typeof NOT_PAGE_REASONS)[number];

export function isPageRequest(request: PageRequest, options: PageRuleOptions = {}): boolean {
  return pageRequestVerdict(request, options) === 'page';
}

/** `page`, or the first reason the request is not one. */
export function pageRequestVerdict(request: PageRequest, options: PageRuleOptions = {}): 'page' | NotPageReason {
  const method = request.method?.toUpperCase();
  if (method === undefined || !PAGE_METHODS.has(method)) return 'method';
  const status = request.status;
  if (status === undefined) return 'otherStatus';
  if (!((status >= 200 && status <= 299) || status === 304)) return statusReason(status);
  return pathVerdict(request.path, options.skipPrefixes ?? DEFAULT_SKIP_PREFIXES);
}

function statusReason(status: number): NotPageReason {
  if (status >= 300 && status <= 399) return 'redirect';
  if (status >= 400 && status <= 499) return 'clientError';
  if (status >= 500 && status <= 599) return 'serverError';
  return 'otherStatus';
}

function pathVerdict(rawPath: string, skipPrefixes: readonly string[]): 'page' | NotPageReason {
  const end = rawPath.search(/[?#]/);
  const path = end < 0 ? rawPath : rawPath.slice(0, end);
  if (!path.startsWith('/')) return 'notRequest';
  if (NON_PAGE_PATHS.has(path) || SITEMAP.test(path)) return 'skippedPath';
  for (const prefix of skipPrefixes) {
    // "/api/" also covers the bare "/api".
    if (path.startsWith(prefix)) return 'skippedPath';
    if (prefix.endsWith('/') && path.length === prefix.length - 1 && prefix.startsWith(path)) return 'skippedPath';
  }
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return 'page';
  const extension = name.slice(dot + 1).toLowerCase();
  if (extension === 'txt') return LLMS_TEXT.test(name) ? 'page' : 'asset';
  return ASSET_EXTENSIONS.has(extension) ? 'asset' : 'page';
}
