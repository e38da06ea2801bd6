/** One quoted attribute value found in raw HTML, with its offsets in the scanned text. */
export interface HtmlAttributeValue {
  value: string;
  /** Offset of the first character of the value (after the quote). */
  start: number;
  end: number;
}

const COMMENT_OPEN = '<!--';
const COMMENT_CLOSE = '-->';

/**
 * The quoted values of attribute `name` (lowercase) in raw HTML such as a Markdown
 * page's `<a href="…">`, skipping `<!-- comments -->`. A hand-written scan instead of
 * a regular expression: a pattern like `href\s*=\s*"([^"]*)"` rescans to the end of the
 * text for every unclosed `href="`, which is quadratic on hostile input. Here each
 * search for a closing quote either consumes the text up to it or, when it fails,
 * is remembered as failing for good, so the whole scan is linear.
 */
export function htmlAttributeValues(html: string, name: string, from = 0, to = html.length): HtmlAttributeValue[] {
  const found: HtmlAttributeValue[] = [];
  const unclosed = new Set<string>();
  let index = from;
  while (index < to) {
    const code = html.charCodeAt(index);
    if (code === 0x3c && html.startsWith(COMMENT_OPEN, index)) {
      const close = html.indexOf(COMMENT_CLOSE, index + COMMENT_OPEN.length);
      if (close === -1 || close >= to) break;
      index = close + COMMENT_CLOSE.length;
      continue;
    }
    // An attribute name follows whitespace inside a tag; `data-href` is not `href`.
    if (!isSpace(code) || !matchesName(html, index + 1, name)) {
      index += 1;
      continue;
    }
    let cursor = skipSpaces(html, index + 1 + name.length, to);
    if (html.charCodeAt(cursor) !== 0x3d /* = */) {
      index = cursor;
      continue;
    }
    cursor = skipSpaces(html, cursor + 1, to);
    const quote = html[cursor];
    if ((quote !== '"' && quote !== "'") || unclosed.has(quote)) {
      index = cursor;
      continue;
    }
    const close = html.indexOf(quote, cursor + 1);
    if (close === -1 || close >= to) {
      unclosed.add(quote);
      index = cursor + 1;
      continue;
    }
    found.push({ value: html.slice(cursor + 1, close), start: cursor + 1, end: close });
    index = close + 1;
  }
  return found;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0c;
}

function skipSpaces(text: string, from: number, to: number): number {
  let index = from;
  while (index < to && isSpace(text.charCodeAt(index))) index += 1;
  return index;
}

/** Case-insensitive comparison of `name` (lowercase ASCII) at `at`, without allocating. */
function matchesName(text: string, at: number, name: string): boolean {
  if (at + name.length > text.length) return false;
  for (let offset = 0; offset < name.length; offset += 1) {
    // Setting bit 0x20 lowercases ASCII letters; the name holds only letters.
    if ((text.charCodeAt(at + offset) | 0x20) !== name.charCodeAt(offset)) return false;
  }
  return true;
}
