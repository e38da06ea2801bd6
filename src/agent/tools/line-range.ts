import { ToolFailure } from './tool-failure.js';
import { countLines, offsetOfLine } from './text-lines.js';
import { jsonBytes, jsonBytesOfString, startWithinJsonBytes } from './json-size.js';

export interface LineRangeRequest {
  /** First line to return, 1-based; 1 when omitted. */
  startLine?: number;
  /** Last line to return, inclusive; the last line of the file when omitted. */
  endLine?: number;
}

export interface LineRangeResult {
  path: string;
  /**
   * The lines, each as its number right-aligned to six places, a tab and the line's text
   * (`cat -n`), joined by `\n`: the numbers are not part of the file.
   */
  content: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  /** True when fewer lines than asked for are shown, to keep the result within its cap. */
  truncated: boolean;
  /** When truncated: the call that reads on. */
  next?: string;
}

/** The prefix `read_file` puts before each line; edit_file's hint recognises it. */
export function numberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

// What the result's other fields may take, beside the path (counted separately, it can be long).
const RESULT_OVERHEAD_BYTES = 400;

/**
 * What `read_file` returns for a file's text: the asked-for lines, numbered, as many as
 * fit in `maxResultBytes` of JSON (the size the model is sent), with the call that reads
 * on when they do not all fit. Models are trained on numbered reads (Claude Code, Codex)
 * and quote line numbers back. Pure, so it runs the same on the main thread (small
 * files) and in a tool worker (large ones).
 */
export function selectLines(text: string, shown: string, request: LineRangeRequest, maxResultBytes: number): LineRangeResult {
  const totalLines = countLines(text);
  const startLine = request.startLine ?? 1;
  if (!Number.isInteger(startLine) || startLine < 1) throw new ToolFailure('startLine must be a whole number of at least 1.');
  if (totalLines === 0 && request.startLine === undefined) {
    return { path: shown, content: '', startLine: 0, endLine: 0, totalLines, truncated: false };
  }
  if (startLine > totalLines) throw new ToolFailure(`${shown} has only ${totalLines} lines; startLine ${startLine} is past the end.`);
  const requestedEnd = request.endLine ?? totalLines;
  if (!Number.isInteger(requestedEnd) || requestedEnd < startLine) {
    throw new ToolFailure('endLine must be a whole number no smaller than startLine.');
  }
  const endLine = Math.min(requestedEnd, totalLines);
  const budget = Math.max(1, maxResultBytes - RESULT_OVERHEAD_BYTES - 2 * jsonBytes(shown));
  const picked: string[] = [];
  let bytes = 0;
  let cutLine: number | undefined;
  let offset = offsetOfLine(text, startLine);
  for (let lineNumber = startLine; lineNumber <= endLine; lineNumber += 1) {
    const next = text.indexOf('\n', offset);
    const line = numberedLine(lineNumber, text.slice(offset, next === -1 ? text.length : next));
    offset = next + 1;
    // "\n" between lines is two bytes of JSON.
    const cost = jsonBytesOfString(line) + 2;
    if (bytes + cost <= budget) {
      picked.push(line);
      bytes += cost;
      continue;
    }
    // Always return at least part of one line, so a huge single line can still be seen.
    if (picked.length === 0) {
      picked.push(startWithinJsonBytes(line, budget + 2));
      cutLine = lineNumber;
    }
    break;
  }
  const lastLine = startLine + picked.length - 1;
  const result: LineRangeResult = { path: shown, content: picked.join('\n'), startLine, endLine: lastLine, totalLines, truncated: false };
  if (cutLine !== undefined) {
    result.truncated = true;
    result.next =
      lastLine < endLine
        ? `Line ${cutLine} is too long to show whole (it was cut); read on with read_file startLine ${lastLine + 1}, or use search to find text in it.`
        : `Line ${cutLine} is too long to show whole (it was cut); use search to find text in it.`;
  } else if (lastLine < endLine) {
    result.truncated = true;
    result.next = `Lines ${lastLine + 1}–${endLine} did not fit in one result; read on with read_file startLine ${lastLine + 1}.`;
  }
  return result;
}
