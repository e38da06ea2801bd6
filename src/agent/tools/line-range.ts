import { ToolFailure } from './tool-failure.js';
import { countLines, offsetOfLine } from './text-lines.js';

export interface LineRangeRequest {
  /** First line to return, 1-based. */
  startLine?: number;
  /** Last line to return, inclusive. */
  endLine?: number;
}

export interface LineRangeResult {
  path: string;
  /** The file's text exactly (whole file) or the requested lines joined by `\n`. */
  content: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  /** True when the requested range was cut short to stay within the read limit. */
  truncated: boolean;
}

/**
 * What `read_file` returns for a file's text: the whole text without a range, else the
 * requested lines up to `maxReadBytes`. Pure, so it runs the same on the main thread
 * (small files) and in a tool worker (large ones).
 */
export function selectLines(text: string, shown: string, request: LineRangeRequest, maxReadBytes: number): LineRangeResult {
  const totalLines = countLines(text);
  if (request.startLine === undefined && request.endLine === undefined) {
    return { path: shown, content: text, startLine: totalLines === 0 ? 0 : 1, endLine: totalLines, totalLines, truncated: false };
  }
  const startLine = request.startLine ?? 1;
  if (!Number.isInteger(startLine) || startLine < 1) throw new ToolFailure('startLine must be a whole number of at least 1.');
  if (startLine > totalLines) throw new ToolFailure(`${shown} has only ${totalLines} lines; startLine ${startLine} is past the end.`);
  const requestedEnd = request.endLine ?? totalLines;
  if (!Number.isInteger(requestedEnd) || requestedEnd < startLine) {
    throw new ToolFailure('endLine must be a whole number no smaller than startLine.');
  }
  const endLine = Math.min(requestedEnd, totalLines);
  const picked: string[] = [];
  let bytes = 0;
  let cut = false;
  let offset = offsetOfLine(text, startLine);
  for (let lineNumber = startLine; lineNumber <= endLine; lineNumber += 1) {
    const next = text.indexOf('\n', offset);
    const line = text.slice(offset, next === -1 ? text.length : next);
    offset = next + 1;
    bytes += Buffer.byteLength(line, 'utf8') + 1;
    // Always return at least one line, so a huge single line can still be seen in part.
    if (bytes > maxReadBytes && picked.length > 0) break;
    if (bytes > maxReadBytes) {
      picked.push(cutToBytes(line, maxReadBytes));
      cut = true;
    } else {
      picked.push(line);
    }
  }
  const lastLine = startLine + picked.length - 1;
  return { path: shown, content: picked.join('\n'), startLine, endLine: lastLine, totalLines, truncated: lastLine < endLine || cut };
}

function cutToBytes(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8').subarray(0, maxBytes);
  // Dropping an incomplete trailing character keeps the result valid text.
  return buffer.toString('utf8').replace(/\uFFFD+$/, '');
}
