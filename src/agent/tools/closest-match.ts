import { findOccurrences } from './find-occurrences.js';
import { linesAtOffsets, offsetOfLine } from './text-lines.js';
import { numberedLine } from './line-range.js';

/*
 * What edit_file tells the model when oldString is not in the file, so that its next call
 * can be right: the text it most likely meant, with line numbers. Every step is linear in
 * the file's length (an 8 MB file is handled in a tool worker, see edit-plan.ts), so a
 * hostile file or needle cannot make the hint expensive.
 */

const SNIPPET_LINES = 30;
const SNIPPET_CHARS = 3000;
/** Below this share of oldString's character pairs, the best window is not worth showing. */
const MIN_SIMILARITY = 0.5;
const LINE_NUMBER_PREFIX = /^ *\d+\t/;

/** A sentence or two (with the text quoted) for the error, or undefined when nothing is close. */
export function describeClosestMatch(text: string, needle: string): string | undefined {
  return withoutLineNumbers(text, needle) ?? ignoringWhitespace(text, needle) ?? mostSimilar(text, needle);
}

/** oldString copied with read_file's prefixes ("    12\t"), which are not in the file. */
function withoutLineNumbers(text: string, needle: string): string | undefined {
  const lines = needle.split('\n');
  if (!lines.some((line) => LINE_NUMBER_PREFIX.test(line)) || !lines.every((line) => line === '' || LINE_NUMBER_PREFIX.test(line))) return undefined;
  const stripped = lines.map((line) => line.replace(LINE_NUMBER_PREFIX, '')).join('\n');
  const found = findOccurrences(text, stripped);
  if (found.count === 0) return undefined;
  const [line] = linesAtOffsets(text, [found.first]);
  return `oldString starts its lines with read_file's line numbers ("     1\\t"), which are not part of the file. Without them it matches at line ${line}: leave the numbers and the tab after them out of oldString.`;
}

/** The same text with other spaces, tabs or line breaks: the commonest slip. */
function ignoringWhitespace(text: string, needle: string): string | undefined {
  const target = collapse(needle.trim());
  if (target.text === '') return undefined;
  const haystack = collapse(text);
  const found = findOccurrences(haystack.text, target.text);
  if (found.count === 0) return undefined;
  const start = haystack.origin[found.first]!;
  const end = haystack.origin[found.first + target.text.length - 1]!;
  const [first, last] = linesAtOffsets(text, [start, end]) as [number, number];
  const where = found.count > 1 ? ` (the first of ${found.count} such places)` : '';
  return `Text that differs from oldString only in whitespace (spaces, indentation or line breaks) is at ${span(first, last)}${where}; copy it exactly:\n${snippet(text, first, last)}`;
}

/** Each run of whitespace as one space, with the offset in `text` of every kept character. */
function collapse(text: string): { text: string; origin: Int32Array } {
  const origin = new Int32Array(text.length);
  // Built as UTF-16 code units and decoded once: a replace() over 8 MB of prose made a
  // string per whitespace run and spent seconds collecting them.
  const units = new Uint16Array(text.length);
  let length = 0;
  let inSpace = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const space = isSpace(code);
    if (space && inSpace) continue;
    inSpace = space;
    origin[length] = index;
    units[length] = space ? 32 : code;
    length += 1;
  }
  return { text: new TextDecoder('utf-16le').decode(units.subarray(0, length)), origin: origin.subarray(0, length) };
}

/**
 * The window of the file, as long as oldString, that shares the most character pairs
 * with it (case-insensitively), kept up to date as the window slides: one pass over the
 * file whatever the needle's length. Pairs are hashed into 65,536 buckets; a collision
 * only makes a window look a little closer than it is.
 */
function mostSimilar(text: string, needle: string): string | undefined {
  const size = Math.min(needle.length, text.length);
  if (size < 2) return undefined;
  const wanted = new Int32Array(65536);
  for (let index = 1; index < needle.length; index += 1) wanted[pairAt(needle, index)]! += 1;
  const pairs = needle.length - 1;
  const held = new Int32Array(65536);
  let shared = 0;
  let best = -1;
  let bestEnd = 0;
  for (let index = 1; index < text.length; index += 1) {
    const added = pairAt(text, index);
    if (held[added]! < wanted[added]!) shared += 1;
    held[added]! += 1;
    // The window holds the pairs ending at index - size + 2 … index.
    const leaving = index - size + 1;
    if (leaving >= 1) {
      const removed = pairAt(text, leaving);
      held[removed]! -= 1;
      if (held[removed]! < wanted[removed]!) shared -= 1;
    }
    if (shared > best) {
      best = shared;
      bestEnd = index;
    }
  }
  if (best / pairs < MIN_SIMILARITY) return undefined;
  // Windows that differ only by whitespace at their ends score alike; the text is what counts.
  let start = Math.max(0, bestEnd - size + 1);
  let end = bestEnd;
  while (start < end && isSpace(text.charCodeAt(start))) start += 1;
  while (end > start && isSpace(text.charCodeAt(end))) end -= 1;
  const [first, last] = linesAtOffsets(text, [start, end]) as [number, number];
  return `The most similar text in the file is at ${span(first, last)} (${Math.round((100 * best) / pairs)}% of oldString's character pairs); if that is what you meant, copy it exactly:\n${snippet(text, first, last)}`;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function pairAt(text: string, index: number): number {
  return ((lower(text.charCodeAt(index - 1)) * 31 + lower(text.charCodeAt(index))) >>> 0) & 0xffff;
}

function lower(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

function span(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}–${last}`;
}

/** Lines first…last as read_file shows them, cut to a size that keeps the error short. */
function snippet(text: string, first: number, last: number): string {
  const shown: string[] = [];
  let chars = 0;
  let offset = offsetOfLine(text, first);
  for (let line = first; line <= last && line < first + SNIPPET_LINES; line += 1) {
    const next = text.indexOf('\n', offset);
    const content = text.slice(offset, next === -1 ? text.length : next);
    offset = next + 1;
    const numbered = numberedLine(line, content.length > SNIPPET_CHARS ? `${content.slice(0, SNIPPET_CHARS)}…` : content);
    chars += numbered.length;
    shown.push(numbered);
    if (chars > SNIPPET_CHARS || next === -1) break;
  }
  const cut = first + shown.length - 1 < last ? `\n(… to line ${last})` : '';
  return shown.join('\n') + cut;
}
