import { lstat, realpath } from 'node:fs/promises';
import type { ToolContext } from './tool-context.js';
import { resolveInWorkspace } from './resolve-in-workspace.js';
import { ToolFailure } from './tool-failure.js';
import { globWorkspace } from './workspace-glob.js';
import { scanWithRegex } from './regex-worker.js';
import { readBytes, looksBinary, ownBytes } from './text-file.js';
import { jsonBytes } from './json-size.js';

export interface SearchInput {
  query: string;
  /** Treat `query` as a JavaScript regular expression instead of literal text. */
  regex?: boolean;
  /** Defaults to false: `api key` also finds `API Key`. */
  caseSensitive?: boolean;
  /** Only search files matching this glob; all files when omitted. */
  glob?: string;
  /** Matches to skip first (to read on after a truncated result); 0 when omitted. */
  offset?: number;
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
  /** When truncated: how to see more. */
  next?: string;
}

// The other fields of the result and its hint.
const RESULT_OVERHEAD_BYTES = 400;
const MAX_OFFSET = 5000;

export async function searchFiles(context: ToolContext, input: SearchInput): Promise<SearchResult> {
  const { limits } = context;
  if (typeof input.query !== 'string' || input.query === '') throw new ToolFailure('query must be a non-empty string.');
  if (input.query.length > limits.maxQueryLength) {
    throw new ToolFailure(`query is longer than ${limits.maxQueryLength} characters.`);
  }
  const offset = input.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new ToolFailure('offset must be a whole number of at least 0.');
  // Every skipped match is still found and held by the scan, so how far one can page is bounded.
  if (offset > MAX_OFFSET) throw new ToolFailure(`offset may be at most ${MAX_OFFSET}; narrow the query or glob instead.`);
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
    // The listing has no links, but every read goes through the one resolver all the same.
    const resolved = await resolveInWorkspace(root, relative).catch(() => undefined);
    const stats = resolved?.kind === 'file' ? await lstat(resolved.absolute).catch(() => undefined) : undefined;
    if (resolved === undefined || stats === undefined || !stats.isFile() || stats.size > limits.maxFileBytes) {
      filesSkipped += 1;
      continue;
    }
    if (bytesRead + stats.size > limits.maxSearchBytes) {
      truncated = true;
      break;
    }
    const bytes = await readBytes(resolved.absolute, relative, limits.maxFileBytes).catch(() => undefined);
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
          { pattern, flags, files, maxMatches: offset + limits.maxSearchResults + 1, maxLineLength: limits.maxSearchLineLength },
          limits.searchTimeoutMs,
        );
  const matches: SearchMatch[] = [];
  // Matches are added while they fit in one result: 200 long lines would not.
  let bytes = RESULT_OVERHEAD_BYTES + jsonBytes(input.query) + jsonBytes(input.glob ?? '');
  for (const match of found.slice(offset, offset + limits.maxSearchResults)) {
    const entry = { path: paths[match.fileIndex]!, line: match.line, text: match.text };
    bytes += jsonBytes(entry) + 1;
    if (bytes > limits.maxResultBytes) break;
    matches.push(entry);
  }
  const moreFound = found.length > offset + matches.length;
  const result: SearchResult = {
    matches,
    truncated: truncated || moreFound,
    filesSearched: paths.length - undecodable.length,
    filesSkipped: filesSkipped + undecodable.length,
  };
  if (moreFound) {
    result.next = `More matches exist than are shown; see them with offset ${offset + matches.length}, or narrow the query or glob.`;
  } else if (truncated) {
    result.next = 'Not every file was searched (too many files or bytes); narrow the glob to search the rest.';
  }
  return result;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
