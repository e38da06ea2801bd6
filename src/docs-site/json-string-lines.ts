/**
 * The line of each string value in a JSON text, for problems and entries that point back
 * into the file. One linear scan records every string value (object keys are skipped) with
 * its line; `lineOf` hands out the occurrences of a value in document order, so a page
 * listed twice gets two lines. Searching the text for each value instead was quadratic.
 */
export class JsonStringLines {
  private index: Map<string, number[]> | undefined;
  private readonly used = new Map<string, number>();

  constructor(private readonly text: string) {}

  lineOf(value: string): number | undefined {
    this.index ??= indexStrings(this.text);
    const lines = this.index.get(value);
    if (lines === undefined || lines.length === 0) return undefined;
    const next = this.used.get(value) ?? 0;
    this.used.set(value, next + 1);
    // A file pulled in twice by `$ref` is walked twice: start over rather than give up.
    return lines[next % lines.length];
  }
}

function indexStrings(text: string): Map<string, number[]> {
  const index = new Map<string, number[]>();
  let line = 1;
  let at = 0;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === 0x0a) {
      line += 1;
      at += 1;
      continue;
    }
    if (code !== 0x22) {
      at += 1;
      continue;
    }
    const start = at;
    let escaped = false;
    at += 1;
    while (at < text.length) {
      const inner = text.charCodeAt(at);
      if (inner === 0x5c) {
        escaped = true;
        at += 2;
        continue;
      }
      // Raw newlines are invalid inside JSON strings; counting them keeps lines right anyway.
      if (inner === 0x0a) line += 1;
      if (inner === 0x22) break;
      at += 1;
    }
    const end = Math.min(at, text.length);
    const tokenLine = line;
    at = end + 1;
    let after = at;
    while (after < text.length && isJsonSpace(text.charCodeAt(after))) after += 1;
    if (text.charCodeAt(after) === 0x3a) continue; // an object key
    const value = escaped ? decode(text.slice(start, end + 1)) : text.slice(start + 1, end);
    if (value === undefined) continue;
    const lines = index.get(value);
    if (lines === undefined) index.set(value, [tokenLine]);
    else lines.push(tokenLine);
  }
  return index;
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
}

function decode(token: string): string | undefined {
  try {
    const value: unknown = JSON.parse(token);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The 1-based line holding `offset`: binary search over the line starts. */
export function lineAtOffset(lineStarts: readonly number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}
