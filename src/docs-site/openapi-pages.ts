import { readSpec } from './openapi-document.js';

/** Pages an OpenAPI spec generates: site paths without a leading slash, e.g. 'api-reference/users/get-user'. */
export interface OpenApiPages {
  pages: string[];
  /** Why no pages could be listed: the spec is too large, unparsable or not OpenAPI. */
  problem?: string;
}

export const MAX_OPERATIONS = 20_000;

const DEFAULT_DIRECTORY = 'api-reference';
// OpenAPI 3 path item methods (https://spec.openapis.org/oas/v3.1.0#path-item-object).
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
// Removed from summaries and tags when they become URL segments.
const DROPPED = new Set(['{', '}', '(', ')', ',', '.', "'", '/']);

/**
 * The URLs of the pages Mintlify generates for a spec's operations and webhooks
 * (https://www.mintlify.com/docs/api-playground/endpoint-urls): directory (lowercased,
 * 'api-reference' by default) / first tag / slug of the summary, or of method and path
 * without a summary; a slug repeated in the spec gets -1, -2 …. An operation's
 * `x-mint: { href }` sets its URL outright (api-playground/openapi-setup, "x-mint: href"),
 * and one with `x-excluded: true` gets no page (api-playground/managing-page-visibility;
 * `x-hidden` pages exist, they are only left out of the navigation).
 */
export function openApiPages(specText: string, directory: string): OpenApiPages {
  const reading = readSpec(specText);
  if ('problem' in reading) return { pages: [], problem: reading.problem };
  const base = directory.trim() === '' ? DEFAULT_DIRECTORY : trimSlashes(directory.toLowerCase());
  const pages: string[] = [];
  const used = new Map<string, number>();
  let operations = 0;
  for (const key of ['paths', 'webhooks'] as const) {
    const section = reading.spec[key];
    if (!isRecord(section)) continue;
    for (const [name, item] of Object.entries(section)) {
      if (!isRecord(item)) continue;
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.has(method) || !isRecord(operation) || operation['x-excluded'] === true) continue;
        operations += 1;
        if (operations > MAX_OPERATIONS) {
          return { pages: [], problem: `The OpenAPI spec has more than ${MAX_OPERATIONS} operations; its pages were not listed.` };
        }
        pages.push(pageOf(operation, method, name, base, used));
      }
    }
  }
  return { pages };
}

function pageOf(operation: Record<string, unknown>, method: string, name: string, base: string, used: Map<string, number>): string {
  const mint = operation['x-mint'];
  if (isRecord(mint) && typeof mint.href === 'string' && trimSlashes(mint.href) !== '') return trimSlashes(mint.href);
  const tags = operation.tags;
  const tag = Array.isArray(tags) && typeof tags[0] === 'string' ? urlSegment(tags[0]) : '';
  const summary = typeof operation.summary === 'string' && operation.summary.trim() !== '' ? urlSegment(operation.summary) : '';
  // A webhook's key is its name where an operation has a path; it stands in the same place.
  const slug = summary !== '' ? summary : methodPathSlug(method, name);
  const path = [base, tag, slug].filter((part) => part !== '').join('/');
  return unique(path, used);
}

/** Spaces to hyphens, `{ } ( ) , . ' /` dropped, lowercase. */
function urlSegment(text: string): string {
  let segment = '';
  for (const character of text.trim()) {
    if (DROPPED.has(character)) continue;
    segment += character === ' ' ? '-' : character;
  }
  return segment.toLowerCase();
}

/** `GET /users/{id}/posts` → `get-users-posts`: path parameters dropped, segments joined by hyphens. */
function methodPathSlug(method: string, path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '' && !(segment.startsWith('{') && segment.endsWith('}')));
  return urlSegment([method, ...segments].join(' '));
}

/** The first use of a path keeps it; later ones get -1, -2 …, skipping any already taken. */
function unique(path: string, used: Map<string, number>): string {
  const seen = used.get(path);
  if (seen === undefined) {
    used.set(path, 0);
    return path;
  }
  let count = seen;
  let candidate: string;
  do {
    count += 1;
    candidate = `${path}-${count}`;
  } while (used.has(candidate));
  used.set(path, count);
  used.set(candidate, 0);
  return candidate;
}

function trimSlashes(path: string): string {
  let start = 0;
  let end = path.length;
  while (start < end && path[start] === '/') start += 1;
  while (end > start && path[end - 1] === '/') end -= 1;
  return path.slice(start, end);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
