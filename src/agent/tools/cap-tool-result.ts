import { jsonBytes, startWithinJsonBytes } from './json-size.js';

/** What replaces a tool result that is larger than one result may be. */
export interface CappedToolResult {
  truncated: true;
  /** The size of the whole result, in bytes of JSON. */
  resultBytes: number;
  note: string;
  /** The beginning of the result's JSON text. */
  partial: string;
}

/**
 * The last-resort cap on one tool result: every tool keeps its own results within
 * `maxResultBytes` (read_file by lines, search and list_files by entries), and this
 * catches whatever still does not fit (a result grown by redaction, a tool without a
 * cap of its own), so no single result can flood the model's context.
 */
export function capToolResult<T>(value: T, maxResultBytes: number): T | CappedToolResult {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) return value;
  const resultBytes = Buffer.byteLength(json, 'utf8');
  if (resultBytes <= maxResultBytes) return value;
  const note = `This result was ${resultBytes} bytes, above the limit of ${maxResultBytes} bytes for one tool result, so only its beginning is shown. Ask for less at once: a line range, a narrower pattern, glob or query.`;
  // The note, the field names and the escaping of the quoted JSON take their share.
  const room = Math.max(0, maxResultBytes - jsonBytes(note) - 100);
  return { truncated: true, resultBytes, note, partial: startWithinJsonBytes(json, room) };
}
