import type { ToolContext } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { globWorkspace } from './workspace-glob.js';
import { jsonBytes } from './json-size.js';

export interface ListFilesInput {
  /** Glob relative to the workspace root; `**\/*` when omitted. */
  pattern?: string;
  limit?: number;
  /** Matching paths to skip first (to read on after a truncated list); 0 when omitted. */
  offset?: number;
}

export interface ListFilesResult {
  files: string[];
  /** How many files matched before the cap. */
  total: number;
  truncated: boolean;
  /** When truncated: how to list the rest. */
  next?: string;
}

// The other fields of the result and its hint.
const RESULT_OVERHEAD_BYTES = 300;

export async function listFiles(context: ToolContext, input: ListFilesInput = {}): Promise<ListFilesResult> {
  const cap = context.limits.maxListResults;
  const limit = input.limit ?? cap;
  const offset = input.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1) throw new ToolFailure('limit must be a positive whole number.');
  if (!Number.isInteger(offset) || offset < 0) throw new ToolFailure('offset must be a whole number of at least 0.');
  const matched = await globWorkspace(context.workspace, input.pattern ?? '**/*', {
    maxPatternLength: context.limits.maxQueryLength,
  });
  const shown: string[] = [];
  // Paths are added while they fit in one result, so a long listing is cut, not the result.
  let bytes = RESULT_OVERHEAD_BYTES + jsonBytes(input.pattern ?? '');
  for (const file of matched.slice(offset, offset + Math.min(limit, cap))) {
    bytes += jsonBytes(file) + 1;
    if (bytes > context.limits.maxResultBytes) break;
    shown.push(file);
  }
  const result: ListFilesResult = { files: shown, total: matched.length, truncated: offset + shown.length < matched.length };
  if (result.truncated) {
    const left = matched.length - offset - shown.length;
    result.next = `${left} more matching paths are not listed; list them with offset ${offset + shown.length}, or narrow the pattern (e.g. "guides/**/*.mdx").`;
  }
  return result;
}
