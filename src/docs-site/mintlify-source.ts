/**
 * Turns a page's text into what the parser reads, at the same length and with the same
 * line breaks, so every offset and line the parser reports is one in the original file.
 * What Mintlify accepts but plain MDX rejects is blanked out (replaced by spaces) here
 * rather than taught to the parser.
 */
export interface PreparedSource {
  source: string;
  /** Custom heading ids (`## Title {#id}`) by 1-based line number. */
  customIds: Map<number, string>;
}

interface Range {
  start: number;
  end: number;
}

const BOM = 0xfeff;
const COMMENT_OPEN = '<!--';
const COMMENT_CLOSE = '-->';

/**
 * `frontmatterLength`: the length of the frontmatter block including its closing line
 * (0 without one); it is blanked so its braces and colons are not read as MDX.
 */
export function prepareSource(text: string, frontmatterLength: number, format: 'md' | 'mdx'): PreparedSource {
  const blanks: Range[] = [];
  if (frontmatterLength > 0) blanks.push({ start: 0, end: frontmatterLength });
  // micromark drops a leading byte order mark from its offsets; a space keeps them aligned.
  else if (text.charCodeAt(0) === BOM) blanks.push({ start: 0, end: 1 });
  // Mintlify accepts `<!-- … -->` in MDX pages (the requirement this check was built to;
  // no Mintlify docs page found states it, and some Mintlify sites' style guides still
  // advise `{/* … */}`), where MDX 3 stops at `<!` ("to create a comment in MDX, use
  // `{/* text */}`"). In Markdown pages the parser knows comments as HTML already.
  const comments = format === 'mdx' ? htmlComments(text, frontmatterLength) : [];
  const { ranges: idRanges, customIds } = customHeadingIds(text, frontmatterLength);
  blanks.push(...mergeSorted(comments, idRanges));
  return { source: blank(text, blanks), customIds };
}

/**
 * `<!--` to the next `-->`, as HTML and Mintlify end a comment. One forward pass; an
 * unclosed comment is left for the parser to report.
 */
function htmlComments(text: string, from: number): Range[] {
  const ranges: Range[] = [];
  let index = text.indexOf(COMMENT_OPEN, from);
  while (index !== -1) {
    const close = text.indexOf(COMMENT_CLOSE, index + COMMENT_OPEN.length);
    if (close === -1) break;
    ranges.push({ start: index, end: close + COMMENT_CLOSE.length });
    index = text.indexOf(COMMENT_OPEN, close + COMMENT_CLOSE.length);
  }
  return ranges;
}

/**
 * `## Title {#custom-id}` at the end of an ATX heading line sets the heading's anchor
 * (https://www.mintlify.com/docs/create/text, "Custom heading IDs", levels 1 to 6).
 * MDX would parse `{#custom-id}` as a JavaScript expression and fail, so the marker is
 * blanked and its id kept by line. Headings may be indented or quoted (`> ## …`); a line
 * in a code block that looks the same is blanked too, which changes nothing this check
 * reads, and no heading node will claim its id.
 */
function customHeadingIds(text: string, from: number): { ranges: Range[]; customIds: Map<number, string> } {
  const ranges: Range[] = [];
  const customIds = new Map<number, string>();
  let line = 1 + countNewlines(text, 0, from);
  for (let start = from; start <= text.length; line += 1) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const marker = headingIdMarker(text, start, end);
    if (marker !== undefined) {
      ranges.push(marker);
      customIds.set(line, text.slice(marker.start + 2, marker.end - 1));
    }
    if (newline === -1) break;
    start = newline + 1;
  }
  return { ranges, customIds };
}

/** The `{#id}` at the end of the heading line [start, end), if there is one. */
function headingIdMarker(text: string, start: number, end: number): Range | undefined {
  let index = start;
  while (index < end && (text[index] === ' ' || text[index] === '\t' || text[index] === '>')) index += 1;
  let hashes = 0;
  while (index + hashes < end && text[index + hashes] === '#') hashes += 1;
  if (hashes < 1 || hashes > 6) return undefined;
  const afterHashes = text[index + hashes];
  if (afterHashes !== ' ' && afterHashes !== '\t') return undefined;
  let last = end - 1;
  while (last > index && isSpace(text[last])) last -= 1;
  if (text[last] !== '}') return undefined;
  // Back to the `{`: the id holds no spaces or braces, so this stops within the id.
  let open = last - 1;
  while (open > index + hashes && !isSpace(text[open]) && text[open] !== '{' && text[open] !== '}') open -= 1;
  if (text[open] !== '{' || text[open + 1] !== '#' || last - open < 3) return undefined;
  return { start: open, end: last + 1 };
}

function isSpace(character: string | undefined): boolean {
  return character === ' ' || character === '\t' || character === '\r';
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}

/** Merges two sorted lists of ranges, dropping a range that overlaps the previous one. */
function mergeSorted(left: Range[], right: Range[]): Range[] {
  const merged: Range[] = [];
  let leftIndex = 0;
  let rightIndex = 0;
  while (leftIndex < left.length || rightIndex < right.length) {
    const fromLeft = rightIndex >= right.length || (leftIndex < left.length && (left[leftIndex]?.start ?? 0) <= (right[rightIndex]?.start ?? 0));
    const next = fromLeft ? left[leftIndex++] : right[rightIndex++];
    if (next === undefined) break;
    const previous = merged.at(-1);
    if (previous !== undefined && next.start < previous.end) continue;
    merged.push(next);
  }
  return merged;
}

const NOT_LINE_BREAK = /[^\r\n]/g;

/** `text` with the sorted, disjoint ranges replaced by spaces, line breaks kept. */
function blank(text: string, ranges: Range[]): string {
  if (ranges.length === 0) return text;
  const parts: string[] = [];
  let cursor = 0;
  for (const range of ranges) {
    if (range.start < cursor) continue;
    parts.push(text.slice(cursor, range.start), text.slice(range.start, range.end).replace(NOT_LINE_BREAK, ' '));
    cursor = range.end;
  }
  parts.push(text.slice(cursor));
  return parts.join('');
}
