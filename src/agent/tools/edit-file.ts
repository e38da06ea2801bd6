import type { ToolContext } from './tool-context.js';
import { assertWritable, resolveForWrite } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { requireRegularFile } from './require-file.js';
import { readText, writeText } from './text-file.js';

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

/** Replaces the single exact occurrence of `oldString`. */
export async function editFile(context: ToolContext, input: EditFileInput): Promise<EditFileResult> {
  if (typeof input.oldString !== 'string' || input.oldString === '') {
    throw new ToolFailure('oldString must be the exact, non-empty text to replace; use write_file to create a file.');
  }
  if (typeof input.newString !== 'string') throw new ToolFailure('newString must be a string.');
  if (input.oldString === input.newString) throw new ToolFailure('oldString and newString are the same; nothing would change.');
  if (Buffer.byteLength(input.newString, 'utf8') > context.limits.maxWriteBytes) {
    throw new ToolFailure(`newString is above the limit of ${context.limits.maxWriteBytes} bytes.`);
  }
  const resolved = await resolveForWrite(context, input.path);
  const shown = resolved.relative;
  await requireRegularFile(context, resolved, shown);
  await assertWritable(context, shown);
  const text = await readText(resolved.absolute, shown, context.limits.maxFileBytes);

  let oldString = input.oldString;
  let newString = input.newString;
  let count = countOccurrences(text, oldString);
  // Models write "\n"; a file with Windows line endings would otherwise never match.
  if (count === 0 && text.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r')) {
    oldString = oldString.replace(/\n/g, '\r\n');
    newString = newString.replace(/\r?\n/g, '\r\n');
    count = countOccurrences(text, oldString);
  }
  if (count === 0) {
    throw new ToolFailure(
      `oldString was not found in ${shown}. It must match the file exactly, including whitespace, indentation and line breaks; read the file again and copy the text.`,
    );
  }
  if (count > 1) {
    throw new ToolFailure(
      `oldString occurs ${count} times in ${shown}; include more surrounding context so that it matches exactly once.`,
    );
  }
  const index = text.indexOf(oldString);
  const updated = text.slice(0, index) + newString + text.slice(index + oldString.length);
  if (Buffer.byteLength(updated, 'utf8') > context.limits.maxFileBytes) {
    throw new ToolFailure(`The edited ${shown} would be above the limit of ${context.limits.maxFileBytes} bytes.`);
  }
  await writeText(resolved.absolute, shown, updated);
  context.changes.record(shown, 'edited');
  return { path: shown, line: text.slice(0, index).split('\n').length };
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) count += 1;
  return count;
}
