import type { ToolContext } from './tool-context.js';
import { resolveForRead } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { requireRegularFile } from './require-file.js';
import { readText, splitLines } from './text-file.js';
import { stat } from 'node:fs/promises';
import { withFileSystemErrors } from './file-system-failure.js';

export interface ReadFileInput {
  path: string;
  /** First line to return, 1-based. */
  startLine?: number;
  /** Last line to return, inclusive. */
  endLine?: number;
}

export interface ReadFileResult {
  path: string;
  /** The file's text exactly (whole file) or the requested lines joined by `\n`. */
  content: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  /** True when the requested range was cut short to stay within the read limit. */
  truncated: boolean;
}

export async function readFile(context: ToolContext, input: ReadFileInput): Promise<ReadFileResult> {
  const { maxReadBytes, maxFileBytes } = context.limits;
  const resolved = await resolveForRead(context, input.path);
  const shown = resolved.relative;
  await requireRegularFile(context, resolved, shown);
  const hasRange = input.startLine !== undefined || input.endLine !== undefined;
  const { size } = await withFileSystemErrors(shown, () => stat(resolved.absolute));
  if (!hasRange && size > maxReadBytes) {
    throw new ToolFailure(
      `${shown} is ${size} bytes, more than the ${maxReadBytes} bytes read at once; read it in parts with startLine and endLine.`,
    );
  }
  const text = await readText(resolved.absolute, shown, hasRange ? maxFileBytes : maxReadBytes);
  const lines = splitLines(text);
  const totalLines = lines.length;
  if (!hasRange) {
    return { path: shown, content: text, startLine: totalLines === 0 ? 0 : 1, endLine: totalLines, totalLines, truncated: false };
  }
  const startLine = input.startLine ?? 1;
  if (!Number.isInteger(startLine) || startLine < 1) throw new ToolFailure('startLine must be a whole number of at least 1.');
  if (startLine > totalLines) throw new ToolFailure(`${shown} has only ${totalLines} lines; startLine ${startLine} is past the end.`);
  const requestedEnd = input.endLine ?? totalLines;
  if (!Number.isInteger(requestedEnd) || requestedEnd < startLine) {
    throw new ToolFailure('endLine must be a whole number no smaller than startLine.');
  }
  const endLine = Math.min(requestedEnd, totalLines);
  const picked: string[] = [];
  let bytes = 0;
  for (let lineNumber = startLine; lineNumber <= endLine; lineNumber += 1) {
    const line = lines[lineNumber - 1]!;
    bytes += Buffer.byteLength(line, 'utf8') + 1;
    // Always return at least one line, so a huge single line can still be seen in part.
    if (bytes > maxReadBytes && picked.length > 0) break;
    picked.push(bytes > maxReadBytes ? cutToBytes(line, maxReadBytes) : line);
  }
  const lastLine = startLine + picked.length - 1;
  return {
    path: shown,
    content: picked.join('\n'),
    startLine,
    endLine: lastLine,
    totalLines,
    truncated: lastLine < endLine || picked.at(-1) !== lines[lastLine - 1],
  };
}

function cutToBytes(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8').subarray(0, maxBytes);
  // Dropping an incomplete trailing character keeps the result valid text.
  return buffer.toString('utf8').replace(/\uFFFD+$/, '');
}
