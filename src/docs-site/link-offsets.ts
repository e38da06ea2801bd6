import { nodeRange, type TreeNode } from './tree-node.js';

/**
 * Where a link's destination is written in the page, so a caller can rewrite just the
 * URL. The parser gives each node's offsets but not its destination's, and the
 * destination it reports is decoded (backslash escapes, character references), so the
 * URL is looked for at the one place it can start and accepted only when the text there
 * is exactly the URL; anything else is "not exactly known" (-1, -1) rather than a guess.
 */
export interface TextRange {
  start: number;
  end: number;
}

export const UNKNOWN_RANGE: TextRange = { start: -1, end: -1 };

/** `[text](url "title")`, `[text](<url with spaces>)`, `<https://autolink>`, GFM `https://literal`. */
export function linkUrlRange(text: string, node: TreeNode, url: string): TextRange {
  const range = nodeRange(node);
  if (range === undefined) return UNKNOWN_RANGE;
  if (text[range.start] === '<') return followedBy(text, exactAt(text, range.start + 1, url, range.end), '>');
  if (text[range.start] !== '[') {
    const literal = exactAt(text, range.start, url, range.end);
    return literal.end === range.end ? literal : UNKNOWN_RANGE;
  }
  // The link text ends where its last child does; `](` follows directly.
  const lastChild = node.children?.at(-1);
  const textEnd = lastChild === undefined ? range.start + 1 : nodeRange(lastChild)?.end;
  if (textEnd === undefined || text[textEnd] !== ']' || text[textEnd + 1] !== '(') return UNKNOWN_RANGE;
  return destinationAt(text, skipWhitespace(text, textEnd + 2, range.end), url, range.end, ')');
}

/** `[label]: url "title"` and `[label]: <url>`. */
export function definitionUrlRange(text: string, node: TreeNode, url: string): TextRange {
  const range = nodeRange(node);
  if (range === undefined || text[range.start] !== '[') return UNKNOWN_RANGE;
  // A label holds no unescaped brackets, so its end is the first `]` not after a backslash.
  let index = range.start + 1;
  while (index < range.end && text[index] !== ']') index += text[index] === '\\' ? 2 : 1;
  if (text[index] !== ']' || text[index + 1] !== ':') return UNKNOWN_RANGE;
  return destinationAt(text, skipWhitespace(text, index + 2, range.end), url, range.end, '');
}

/** The value of a JSX attribute written `name="value"` or `name='value'`. */
export function attributeValueRange(text: string, attribute: TreeNode, value: string): TextRange {
  const range = nodeRange(attribute);
  if (range === undefined) return UNKNOWN_RANGE;
  const equals = text.indexOf('=', range.start);
  if (equals === -1 || equals >= range.end) return UNKNOWN_RANGE;
  const quoteAt = skipWhitespace(text, equals + 1, range.end);
  const quote = text[quoteAt];
  if (quote !== '"' && quote !== "'") return UNKNOWN_RANGE;
  return followedBy(text, exactAt(text, quoteAt + 1, value, range.end), quote);
}

/**
 * The destination at `at`, bare or in angle brackets. Its end must be where the written
 * destination ends too: `[a](&amp;)` has the URL `&`, which the text starts with.
 * `closer`: the character that may end a bare destination besides whitespace and the
 * end of the node (`)` for a link, none for a definition).
 */
function destinationAt(text: string, at: number, url: string, limit: number, closer: string): TextRange {
  if (text[at] === '<') return followedBy(text, exactAt(text, at + 1, url, limit), '>');
  const found = exactAt(text, at, url, limit);
  if (found.start === -1) return found;
  const next = text[found.end];
  return found.end === limit || next === closer || next === ' ' || next === '\t' || next === '\n' || next === '\r' ? found : UNKNOWN_RANGE;
}

function followedBy(text: string, found: TextRange, character: string): TextRange {
  return found.start !== -1 && text[found.end] === character ? found : UNKNOWN_RANGE;
}

function exactAt(text: string, at: number, url: string, limit: number): TextRange {
  const end = at + url.length;
  return end <= limit && text.startsWith(url, at) ? { start: at, end } : UNKNOWN_RANGE;
}

function skipWhitespace(text: string, from: number, limit: number): number {
  let index = from;
  while (index < limit && (text[index] === ' ' || text[index] === '\t' || text[index] === '\n' || text[index] === '\r')) index += 1;
  return index;
}
