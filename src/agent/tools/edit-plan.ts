import { ToolFailure } from './tool-failure.js';
import { findOccurrences } from './find-occurrences.js';
import { lineAtOffset } from './text-lines.js';

export interface EditPlan {
  /** The file's new text. */
  updated: string;
  /** 1-based line where the replacement starts. */
  line: number;
}

/**
 * The text of a file after replacing the single occurrence of `oldString`, or a
 * ToolFailure saying why not. Pure and linear in the sizes, so it runs the same on the
 * main thread (small files) and in a tool worker (large ones).
 */
export function planEdit(text: string, shown: string, oldString: string, newString: string, maxFileBytes: number): EditPlan {
  let needle = oldString;
  let replacement = newString;
  let found = findOccurrences(text, needle);
  // Models write "\n"; a file with Windows line endings would otherwise never match.
  if (found.count === 0 && needle.includes('\n') && !needle.includes('\r') && text.includes('\r\n')) {
    needle = needle.replace(/\n/g, '\r\n');
    replacement = replacement.replace(/\r?\n/g, '\r\n');
    found = findOccurrences(text, needle);
  }
  if (found.count === 0) {
    throw new ToolFailure(
      `oldString was not found in ${shown}. It must match the file exactly, including whitespace, indentation and line breaks; read the file again and copy the text.`,
    );
  }
  if (found.count > 1) {
    throw new ToolFailure(`oldString occurs ${found.count} times in ${shown}; include more surrounding context so that it matches exactly once.`);
  }
  const updated = text.slice(0, found.first) + replacement + text.slice(found.first + needle.length);
  if (Buffer.byteLength(updated, 'utf8') > maxFileBytes) {
    throw new ToolFailure(`The edited ${shown} would be above the limit of ${maxFileBytes} bytes.`);
  }
  return { updated, line: lineAtOffset(text, found.first) };
}
