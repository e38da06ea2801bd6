/*
 * Line arithmetic on a file's text without splitting it into an array of lines: a file of
 * 8 MB of line breaks would become eight million strings (1.7 s of work and a lot of
 * memory), where these walk the text with indexOf.
 */

/** The number of lines; a final line break does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let count = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count += 1;
  return text.endsWith('\n') ? count - 1 : count;
}

/** The 1-based line holding the character at `offset`. */
export function lineAtOffset(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

/** Offset of the first character of the 1-based `line`; the text's length past the end. */
export function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let current = 1; current < line; current += 1) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return offset;
}

/** The 1-based lines holding each of the ascending `offsets`, in one walk of the text. */
export function linesAtOffsets(text: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let index = text.indexOf('\n');
  for (const offset of offsets) {
    while (index !== -1 && index < offset) {
      line += 1;
      index = text.indexOf('\n', index + 1);
    }
    lines.push(line);
  }
  return lines;
}
