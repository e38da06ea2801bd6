import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { globWorkspace } from './workspace-glob.js';
import { scanWithRegex } from './regex-worker.js';
import { readBytes, looksBinary, ownBytes } from './text-file.js';

export interface SearchInput {
  query: string;
  /** Treat `query` as a JavaScript regular expression instead of literal text. */
  regex?: boolean;
  /** Defaults to false: `api key` also finds `API Key`. */
  caseSensitive?: boolean;
  /** Only search files matching this glob; all files when omitted. */
  glob?: string;
}

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  /** True when more matches or files existed than the caps allow. */
  truncated: boolean;
  filesSearched: number;
  /** Binary, oversized or unreadable files that were passed over. */
  filesSkipped: number;
}

export async function searchFiles(context: ToolContext, input: SearchInput): Promise<SearchResult> {
  const { limits } = context;
  if (typeof input.query !== 'string' || input.query === '') throw new ToolFailure('query must be a non-empty string.');
  if (input.query.length > limits.maxQueryLength) {
    throw new ToolFailure(`query is longer than ${limits.maxQueryLength} characters.`);
  }
  const pattern = input.regex === true ? input.query : escapeRegExp(input.query);
  const flags = input.caseSensitive === true ? '' : 'i';
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ToolFailure(`query is not a valid regular expression: ${(error as Error).message}`);
  }

  const root = await realpath(context.workspace);
  const candidates = await globWorkspace(root, input.glob ?? '**/*', { maxPatternLength: limits.maxQueryLength });
  let truncated = candidates.length > limits.maxScannedFiles;
  const paths: string[] = [];
  const files: Uint8Array[] = [];
  let filesSkipped = 0;
  let bytesRead = 0;
  for (const relative of candidates.slice(0, limits.maxScannedFiles)) {
    const absolute = path.join(root, ...relative.split('/'));
    const stats = await lstat(absolute).catch(() => undefined);
    if (stats === undefined || !stats.isFile() || stats.size > limits.maxFileBytes) {
      filesSkipped += 1;
      continue;
    }
    if (bytesRead + stats.size > limits.maxSearchBytes) {
      truncated = true;
      break;
    }
    const bytes = await readBytes(absolute, relative, limits.maxFileBytes).catch(() => undefined);
    if (bytes === undefined || looksBinary(bytes)) {
      filesSkipped += 1;
      continue;
    }
    bytesRead += stats.size;
    paths.push(relative);
    // Decoded in the search worker: decoding megabytes here would hold up every request.
    files.push(ownBytes(bytes));
  }

  const { matches: found, undecodable } =
    files.length === 0
      ? { matches: [], undecodable: [] }
      : await scanWithRegex(
          { pattern, flags, files, maxMatches: limits.maxSearchResults + 1, maxLineLength: limits.maxSearchLineLength },
          limits.searchTimeoutMs,
        );
  const matches = found.slice(0, limits.maxSearchResults).map((match) => ({
    path: paths[match.fileIndex]!,
    line: match.line,
    text: match.text,
  }));
  return {
    matches,
    truncated: truncated || found.length > limits.maxSearchResults,
    filesSearched: paths.length - undecodable.length,
    filesSkipped: filesSkipped + undecodable.length,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
