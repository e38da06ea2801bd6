import type { ToolContext } from './tool-context.js';
import { resolveForRead } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { requireRegularFile } from './require-file.js';
import { readText } from './text-file.js';
import { stat } from 'node:fs/promises';
import { withFileSystemErrors } from './file-system-failure.js';
import { selectLines, type LineRangeRequest, type LineRangeResult } from './line-range.js';
import { taskResult } from './task-result.js';

export interface ReadFileInput extends LineRangeRequest {
  path: string;
}

export type ReadFileResult = LineRangeResult;

/**
 * Reads a file whole or by lines. A file above `maxReadBytes` (only readable by lines) is
 * decoded and cut in a tool worker: decoding and walking 8 MB takes tens of milliseconds,
 * which the thread answering requests must not spend.
 */
export async function readFile(context: ToolContext, input: ReadFileInput): Promise<ReadFileResult> {
  const { maxReadBytes, maxFileBytes, largeFileTimeoutMs } = context.limits;
  const resolved = await resolveForRead(context, input.path);
  const shown = resolved.relative;
  await requireRegularFile(context, resolved, shown);
  const hasRange = input.startLine !== undefined || input.endLine !== undefined;
  const { size } = await withFileSystemErrors(shown, () => stat(resolved.absolute));
  if (!hasRange && size > maxReadBytes) {
    throw new ToolFailure(`${shown} is ${size} bytes, more than the ${maxReadBytes} bytes read at once; read it in parts with startLine and endLine.`);
  }
  const range: LineRangeRequest = hasRange ? { startLine: input.startLine ?? 1, endLine: input.endLine } : {};
  if (size <= maxReadBytes) {
    const text = await readText(resolved.absolute, shown, hasRange ? maxFileBytes : maxReadBytes);
    return selectLines(text, shown, range, maxReadBytes);
  }
  if (size > maxFileBytes) throw new ToolFailure(`${shown} is ${size} bytes, above the limit of ${maxFileBytes} bytes.`);
  const outcome = await context.workers.run(
    { kind: 'read-lines', absolute: resolved.absolute, shown, maxFileBytes, maxReadBytes, ...range },
    largeFileTimeoutMs,
  );
  return taskResult(outcome, `Reading ${shown}`);
}
