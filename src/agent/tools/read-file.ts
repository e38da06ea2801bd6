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
 * Reads a file's lines, numbered, from `startLine` (default 1) up to `endLine` or as many
 * as fit in one result (see line-range.ts). A file above `maxReadBytes` is decoded and
 * cut in a tool worker: decoding and walking 8 MB takes tens of milliseconds, which the
 * thread answering requests must not spend.
 */
export async function readFile(context: ToolContext, input: ReadFileInput): Promise<ReadFileResult> {
  const { maxReadBytes, maxFileBytes, maxResultBytes, largeFileTimeoutMs } = context.limits;
  const resolved = await resolveForRead(context, input.path);
  const shown = resolved.relative;
  await requireRegularFile(context, resolved, shown);
  const { size } = await withFileSystemErrors(shown, () => stat(resolved.absolute));
  const range: LineRangeRequest = {
    ...(input.startLine === undefined ? {} : { startLine: input.startLine }),
    ...(input.endLine === undefined ? {} : { endLine: input.endLine }),
  };
  if (size <= maxReadBytes) {
    const text = await readText(resolved.absolute, shown, maxFileBytes);
    return selectLines(text, shown, range, maxResultBytes);
  }
  if (size > maxFileBytes) throw new ToolFailure(`${shown} is ${size} bytes, above the limit of ${maxFileBytes} bytes.`);
  const outcome = await context.workers.run(
    { kind: 'read-lines', absolute: resolved.absolute, shown, maxFileBytes, maxResultBytes, ...range },
    largeFileTimeoutMs,
  );
  return taskResult(outcome, `Reading ${shown}`);
}
