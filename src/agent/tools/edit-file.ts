import { stat } from 'node:fs/promises';
import type { ToolContext } from './tool-context.js';
import { assertWritable, resolveForWrite } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { requireRegularFile } from './require-file.js';
import { readText, writeText } from './text-file.js';
import { withFileSystemErrors } from './file-system-failure.js';
import { planEdit } from './edit-plan.js';
import { taskResult } from './task-result.js';

export interface EditFileInput {
  path: string;
  /** Exact text to replace; must occur exactly once in the file. */
  oldString: string;
  newString: string;
}

export interface EditFileResult {
  path: string;
  /** 1-based line where the replacement starts. */
  line: number;
}

/**
 * Replaces the single exact occurrence of `oldString`. A file above `maxReadBytes` is
 * searched and rebuilt in a tool worker, which hands back the new bytes; writing them
 * stays here, so a worker stopped at its time limit never leaves a half-written file.
 */
export async function editFile(context: ToolContext, input: EditFileInput): Promise<EditFileResult> {
  const { maxWriteBytes, maxFileBytes, maxReadBytes, largeFileTimeoutMs } = context.limits;
  if (typeof input.oldString !== 'string' || input.oldString === '') {
    throw new ToolFailure('oldString must be the exact, non-empty text to replace; use write_file to create a file.');
  }
  if (typeof input.newString !== 'string') throw new ToolFailure('newString must be a string.');
  if (input.oldString === input.newString) throw new ToolFailure('oldString and newString are the same; nothing would change.');
  if (Buffer.byteLength(input.newString, 'utf8') > maxWriteBytes) {
    throw new ToolFailure(`newString is above the limit of ${maxWriteBytes} bytes.`);
  }
  const resolved = await resolveForWrite(context, input.path);
  const shown = resolved.relative;
  await requireRegularFile(context, resolved, shown);
  await assertWritable(context, shown);
  const { size } = await withFileSystemErrors(shown, () => stat(resolved.absolute));
  if (size <= maxReadBytes) {
    const text = await readText(resolved.absolute, shown, maxFileBytes);
    const plan = planEdit(text, shown, input.oldString, input.newString, maxFileBytes);
    await writeText(resolved.absolute, shown, plan.updated);
    context.changes.record(shown, 'edited');
    return { path: shown, line: plan.line };
  }
  if (size > maxFileBytes) throw new ToolFailure(`${shown} is ${size} bytes, above the limit of ${maxFileBytes} bytes.`);
  const outcome = await context.workers.run(
    { kind: 'edit', absolute: resolved.absolute, shown, maxFileBytes, oldString: input.oldString, newString: input.newString },
    largeFileTimeoutMs,
  );
  const { bytes, line } = taskResult(outcome, `Editing ${shown}`);
  await writeText(resolved.absolute, shown, bytes);
  context.changes.record(shown, 'edited');
  return { path: shown, line };
}
