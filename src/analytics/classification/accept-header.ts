/**
 * Just enough of RFC 9110 §12.5.1 (Accept) to answer "does this client prefer Markdown over
 * HTML?". Quality values are honoured and the most specific matching range wins, so
 * "text/markdown;q=0, *\/*" does not count as wanting Markdown.
 */
export interface MediaRange {
  type: string;
  subtype: string;
  quality: number;
  /** Index in the header, used to break ties between equally weighted ranges. */
  position: number;
}

/** What a header grants one media type: its quality, and the range that decided it. */
export interface Grant {
  quality: number;
  /** 2 for an exact type/subtype range, 1 for type/*, 0 for *\/*, -1 when nothing matched. */
  specificity: number;
  position: number;
}

// Longer headers are abuse, not content negotiation; the preferred types come first anyway.
const MAX_HEADER_LENGTH = 4096;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QUALITY = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

export function parseAccept(header: string | null | undefined): MediaRange[] {
  if (header === null || header === undefined) return [];
  const ranges: MediaRange[] = [];
  const elements = splitOutsideQuotes(header.slice(0, MAX_HEADER_LENGTH), ',');
  elements.forEach((element, position) => {
    const range = parseRange(element, position);
    if (range !== null) ranges.push(range);
  });
  return ranges;
}

function parseRange(element: string, position: number): MediaRange | null {
  const [mediaType = '', ...parameters] = splitOutsideQuotes(element, ';').map((part) => part.trim());
  const slash = mediaType.indexOf('/');
  if (slash <= 0) return null;
  const type = mediaType.slice(0, slash).toLowerCase();
  const subtype = mediaType.slice(slash + 1).toLowerCase();
  if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) return null;

  let quality = 1;
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals <= 0) continue;
    if (parameter.slice(0, equals).trim().toLowerCase() !== 'q') continue;
    const value = parameter.slice(equals + 1).trim();
    // A range with an unreadable weight is dropped rather than guessed at.
    if (!QUALITY.test(value)) return null;
    quality = Number(value);
    break; // parameters after q are accept-extensions, not part of the range
  }
  return { type, subtype, quality, position };
}

/** The quality a parsed header grants to type/subtype (both lower case). */
export function grantFor(ranges: readonly MediaRange[], type: string, subtype: string): Grant {
  let best: Grant = { quality: 0, specificity: -1, position: Number.POSITIVE_INFINITY };
  for (const range of ranges) {
    const specificity = specificityOf(range, type, subtype);
    if (specificity < 0) continue;
    const better = specificity > best.specificity || (specificity === best.specificity && range.quality > best.quality);
    if (better) best = { quality: range.quality, specificity, position: range.position };
  }
  return best;
}

function specificityOf(range: MediaRange, type: string, subtype: string): number {
  if (range.type === '*') return 0;
  if (range.type !== type) return -1;
  if (range.subtype === '*') return 1;
  return range.subtype === subtype ? 2 : -1;
}

/** The best of several grants, for types that mean the same thing (text/markdown, text/x-markdown). */
export function bestGrant(grants: readonly Grant[]): Grant {
  let best: Grant = { quality: 0, specificity: -1, position: Number.POSITIVE_INFINITY };
  for (const grant of grants) {
    if (compareGrants(grant, best) > 0) best = grant;
  }
  return best;
}

/**
 * Positive when `a` is preferred over `b`. Higher quality wins; on equal quality an explicitly
 * named type beats one reached through a wildcard, and then the range listed first wins,
 * which is how clients such as "text/markdown, text/html" express their order.
 */
export function compareGrants(a: Grant, b: Grant): number {
  if (a.quality !== b.quality) return a.quality - b.quality;
  const aExplicit = a.specificity === 2;
  const bExplicit = b.specificity === 2;
  if (aExplicit !== bExplicit) return aExplicit ? 1 : -1;
  if (!aExplicit) return 0;
  return b.position - a.position;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (character === '"') quoted = !quoted;
    else if (character === '\\' && quoted) {
      current += character + (text[index + 1] ?? '');
      index++;
      continue;
    }
    if (character === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += character;
  }
  parts.push(current);
  return parts;
}
