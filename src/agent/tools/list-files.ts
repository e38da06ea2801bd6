import type { ToolContext } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { globWorkspace } from './workspace-glob.js';

export interface ListFilesInput {
  /** Glob relative to the workspace root; `**\/*` when omitted. */
  pattern?: string;
  limit?: number;
}

export interface ListFilesResult {
  files: string[];
  /** How many files matched before the cap. */
  total: number;
  truncated: boolean;
}

export async function listFiles(context: ToolContext, input: ListFilesInput = {}): Promise<ListFilesResult> {
  const cap = context.limits.maxListResults;
  const limit = input.limit ?? cap;
  if (!Number.isInteger(limit) || limit < 1) throw new ToolFailure('limit must be a positive whole number.');
  const matched = await globWorkspace(context.workspace, input.pattern ?? '**/*', {
    maxPatternLength: context.limits.maxQueryLength,
  });
  const shown = matched.slice(0, Math.min(limit, cap));
  return { files: shown, total: matched.length, truncated: shown.length < matched.length };
}
