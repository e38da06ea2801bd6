/**
 * The one spelling of a page path, whichever way a hit arrives (beacon, events API, log
 * import): the same page must be counted under the same key. A browser's
 * `location.pathname` is percent-encoded (`/caf%C3%A9`), an access log keeps what the
 * client sent (usually encoded, sometimes raw), and API callers send either.
 *
 * The canonical form is the readable one: escapes are decoded to text, except where
 * decoding would change the path's structure or produce a character nobody can see or
 * type back: `/`, `?`, `#`, `%`, whitespace (`%20`), control and format characters stay
 * (or become) encoded, in upper case, and so do byte runs that are not valid UTF-8.
 * Idempotent: canonicalizing a canonical path returns it unchanged.
 */
export function canonicalPathEncoding(path: string): string {
  if (!NEEDS_WORK.test(path)) return path;
  let result = path;
  if (INVISIBLE_TEST.test(result)) result = result.replace(INVISIBLE, encodeText);
  if (result.includes('%')) result = result.replace(PERCENT_RUN, decodePercentRun);
  return result;
}

const NEEDS_WORK = /[%\u0000-\u0020\u007f-\uffff]/;
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
// Controls, format characters (zero-width, bidi marks) and every kind of space or line break.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}]/gu;
const INVISIBLE_TEST = /[\p{Cc}\p{Cf}\p{Z}]/u;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

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

/** ASCII bytes whose decoding would change the path's meaning or hide a character. */
function mustStayEncoded(byte: number): boolean {
  return byte <= 0x20 || byte === 0x7f || byte === 0x2f || byte === 0x3f || byte === 0x23 || byte === 0x25;
}

function decodeBytes(bytes: Uint8Array): string {
  if (bytes.length === 0) return '';
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return encodeBytes(bytes);
  }
  return INVISIBLE_TEST.test(text) ? text.replace(INVISIBLE, encodeText) : text;
}

function encodeText(text: string): string {
  return encodeBytes(encoder.encode(text));
}

function encodeBytes(bytes: Uint8Array): string {
  let encoded = '';
  for (const byte of bytes) encoded += percentEncodeByte(byte);
  return encoded;
}

function percentEncodeByte(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}
