import { ToolFailure } from './tool-failure.js';
import { findOccurrences } from './find-occurrences.js';
import { linesAtOffsets } from './text-lines.js';
import { describeClosestMatch } from './closest-match.js';

export interface EditPlan {
  /** The file's new text. */
  updated: string;
  /** 1-based line where the (first) replacement starts. */
  line: number;
  /** How many occurrences were replaced: 1 unless `replaceAll`. */
  replacements: number;
}

/**
 * oldString is not in the file, and the closest match was not looked for (see planEdit's
 * `closestMatch`): the caller looks for it where it may take longer.
 */
export class TextNotFound extends ToolFailure {}

/** Lines named when oldString occurs more than once. */
const NAMED_LINES = 20;

/**
 * The text of a file after replacing the single occurrence of `oldString` (every one
 * with `replaceAll`), or a ToolFailure saying why not and what the model likely meant.
 * Pure and linear in the sizes, so it runs the same on the main thread (small files) and
 * in a tool worker (large ones).
 */
export function planEdit(
  text: string,
  shown: string,
  oldString: string,
  newString: string,
  maxFileBytes: number,
  replaceAll = false,
  closestMatch = true,
): EditPlan {
  let needle = oldString;
  let replacement = newString;
  const keep = replaceAll ? Number.POSITIVE_INFINITY : NAMED_LINES;
  let found = findOccurrences(text, needle, keep);
  // Models write "\n"; a file with Windows line endings would otherwise never match.
  if (found.count === 0 && needle.includes('\n') && !needle.includes('\r') && text.includes('\r\n')) {
    needle = needle.replace(/\n/g, '\r\n');
    replacement = replacement.replace(/\r?\n/g, '\r\n');
    found = findOccurrences(text, needle, keep);
  }
  if (found.count === 0) {
    const missing = `oldString was not found in ${shown}. It must match the file exactly, including whitespace, indentation and line breaks.`;
    if (!closestMatch) throw new TextNotFound(missing);
    const hint = describeClosestMatch(text, needle);
    throw new ToolFailure(`${missing}${hint === undefined ? ' Read the file again and copy the text.' : ` ${hint}`}`);
  }
  if (found.count > 1 && !replaceAll) {
    const lines = [...new Set(linesAtOffsets(text, found.positions))];
    const more = found.count > found.positions.length ? ', …' : '';
    const where = lines.length === 1 && more === '' ? `all on line ${lines[0]}` : `at lines ${lines.join(', ')}${more}`;
    throw new ToolFailure(
      `oldString occurs ${found.count} times in ${shown} (${where}); include more surrounding context so that it matches exactly once, or set replaceAll to replace every occurrence.`,
    );
  }
  const pieces: string[] = [];
  let from = 0;
  for (const position of found.positions) {
    pieces.push(text.slice(from, position), replacement);
    from = position + needle.length;
  }
  pieces.push(text.slice(from));
  const updated = pieces.join('');
  if (Buffer.byteLength(updated, 'utf8') > maxFileBytes) {
    throw new ToolFailure(`The edited ${shown} would be above the limit of ${maxFileBytes} bytes.`);
  }
  const [line] = linesAtOffsets(text, [found.first]) as [number];
  return { updated, line, replacements: found.count };
}
