/** Longer paths are cut here: real pages never need more, and unbounded keys bloat storage. */
export const MAX_PATH_LENGTH = 1024;

const ABSOLUTE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const RAW_CONTROL = /[\u0000-\u001f\u007f]/g;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Turns a logged request target into the page key analytics counts by: the path of an
 * absolute URL, without query string and fragment, percent-decoded where that is safe,
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

  path = path.replace(RAW_CONTROL, (character) => percentEncodeByte(character.charCodeAt(0)));
  if (path.includes('%')) path = path.replace(PERCENT_RUN, decodePercentRun);
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

/**
 * Decodes a run of %XX escapes to text, except bytes whose decoding would change the
 * path's meaning or hide characters (`/`, `?`, `#`, `%`, ASCII controls) and byte
 * sequences that are not valid UTF-8; those stay encoded, in upper case, so the result
 * is canonical.
 */
function decodePercentRun(run: string): string {
  const bytes = new Uint8Array(run.length / 3);
  for (let index = 0; index < bytes.length; index++) bytes[index] = parseInt(run.slice(index * 3 + 1, index * 3 + 3), 16);
  let result = '';
  let start = 0;
  for (let index = 0; index <= bytes.length; index++) {
    const byte = bytes[index];
    if (byte !== undefined && !mustStayEncoded(byte)) continue;
    result += decodeBytes(bytes.subarray(start, index));
    if (byte !== undefined) result += percentEncodeByte(byte);
    start = index + 1;
  }
  return result;
}

function mustStayEncoded(byte: number): boolean {
  return byte < 0x20 || byte === 0x7f || byte === 0x2f || byte === 0x3f || byte === 0x23 || byte === 0x25;
}

function decodeBytes(bytes: Uint8Array): string {
  if (bytes.length === 0) return '';
  try {
    return utf8.decode(bytes);
  } catch {
    let encoded = '';
    for (const byte of bytes) encoded += percentEncodeByte(byte);
    return encoded;
  }
}

function percentEncodeByte(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
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
  const capped = path.slice(0, end);
  // Cutting "/..x" to "/.." would leave a dot segment a second normalization resolves.
  return capped.endsWith('/.') || capped.endsWith('/..') ? removeDotSegments(capped) : capped;
}
