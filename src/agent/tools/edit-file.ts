import { stat } from 'node:fs/promises';
import type { ToolContext } from './tool-context.js';
import { assertWritable, resolveForWrite } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { requireRegularFile } from './require-file.js';
import { readText, writeText } from './text-file.js';
import { withFileSystemErrors } from './file-system-failure.js';
import { planEdit, TextNotFound, type EditPlan } from './edit-plan.js';

const CLOSEST_MATCH_INLINE_BYTES = 32 * 1024;
import { taskResult } from './task-result.js';

export interface EditFileInput {
  path: string;
  /** Exact text to replace; must occur exactly once in the file unless `replaceAll`. */
  oldString: string;
  newString: string;
  /** Replace every occurrence instead of exactly one. */
  replaceAll?: boolean;
}

export interface EditFileResult {
  path: string;
  /** 1-based line where the (first) replacement starts. */
  line: number;
  /** With `replaceAll`: how many occurrences were replaced. */
  replacements?: number;
}

/**
 * Replaces the single exact occurrence of `oldString` (every one with `replaceAll`). A
 * file above `maxReadBytes` is searched and rebuilt in a tool worker, which hands back the
 * new bytes; writing them stays here, so a worker stopped at its time limit never leaves
 * a half-written file.
 */
export async function editFile(context: ToolContext, input: EditFileInput): Promise<EditFileResult> {
  const { maxWriteBytes, maxFileBytes, maxReadBytes, largeFileTimeoutMs } = context.limits;
  if (typeof input.oldString !== 'string' || input.oldString === '') {
    throw new ToolFailure('oldString must be the exact, non-empty text to replace; use write_file to create a file.');
  }
  if (typeof input.newString !== 'string') throw new ToolFailure('newString must be a string.');
  const replaceAll = input.replaceAll === true;
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
    const plan = planInline(text, shown, input, maxFileBytes, replaceAll);
    if (plan !== undefined) {
      await writeText(resolved.absolute, shown, plan.updated);
      context.changes.record(shown, 'edited');
      return resultOf(shown, plan.line, plan.replacements, replaceAll);
    }
  }
  if (size > maxFileBytes) throw new ToolFailure(`${shown} is ${size} bytes, above the limit of ${maxFileBytes} bytes.`);
  // The worker reads the file afresh: nothing else changes it meanwhile (tool-call-queue.ts).
  const outcome = await context.workers.run(
    { kind: 'edit', absolute: resolved.absolute, shown, maxFileBytes, oldString: input.oldString, newString: input.newString, replaceAll },
    largeFileTimeoutMs,
  );
  const { bytes, line, replacements } = taskResult(outcome, `Editing ${shown}`);
  await writeText(resolved.absolute, shown, bytes);
  context.changes.record(shown, 'edited');
  return resultOf(shown, line, replacements, replaceAll);
}

/**
 * The edit planned on this thread, or undefined when oldString is missing from a file
 * above CLOSEST_MATCH_INLINE_BYTES: the closest match of a 100 KB oldString in 256 KB took
 * 60 ms, too long for this thread, so the worker looks for it instead.
 */
function planInline(text: string, shown: string, input: EditFileInput, maxFileBytes: number, replaceAll: boolean): EditPlan | undefined {
  const inline = text.length <= CLOSEST_MATCH_INLINE_BYTES;
  try {
    return planEdit(text, shown, input.oldString, input.newString, maxFileBytes, replaceAll, inline);
  } catch (error) {
    if (error instanceof TextNotFound) return undefined;
    throw error;
  }
}

function resultOf(shown: string, line: number, replacements: number, replaceAll: boolean): EditFileResult {
  return replaceAll ? { path: shown, line, replacements } : { path: shown, line };
}
