/**
 * Caps on what one tool call may read, write or return. They keep a single call from
 * flooding the model's context, exhausting memory, or running for long.
 */
export interface ToolLimits {
  /** Longest accepted relative path, in characters. */
  maxPathLength: number;
  /** Most paths `list_files` returns. */
  maxListResults: number;
  /**
   * Largest file read and edited on the main thread; a larger one (up to `maxFileBytes`)
   * is decoded and cut in a tool worker, so it never holds up the thread answering requests.
   */
  maxReadBytes: number;
  /** Largest file that is read or edited at all. */
  maxFileBytes: number;
  /**
   * Largest result of one tool call, in bytes of JSON as the model is sent it: read_file
   * returns fewer lines, search and list_files fewer entries, anything else is cut, each
   * with a hint how to get the rest.
   */
  maxResultBytes: number;
  /** Largest content `write_file` accepts and largest result of `edit_file`. */
  maxWriteBytes: number;
  /** Most matches `search` returns. */
  maxSearchResults: number;
  /** Matched lines are cut to this many characters in results. */
  maxSearchLineLength: number;
  /** Most files `search` and `check_docs` look at. */
  maxScannedFiles: number;
  /** Total bytes `search` reads across all files. */
  maxSearchBytes: number;
  /** Longest accepted search query or glob pattern. */
  maxQueryLength: number;
  /** Wall-clock budget of one search; a runaway regular expression is stopped at this point. */
  searchTimeoutMs: number;
  /** Most pages `check_docs` checks (25,000-page sites are real: versioned, translated). */
  maxCheckedPages: number;
  /** Most problems `check_docs` reports. */
  maxProblems: number;
  /** Largest page `check_docs` compiles; a larger page is reported, not compiled. */
  maxCheckedPageBytes: number;
  /** Wall-clock budget of checking one page or site configuration; a page that needs longer is reported. */
  pageCheckTimeoutMs: number;
  /** Wall-clock budget of a whole `check_docs` run; pages left when it is spent are reported as unchecked. */
  checkDocsTimeoutMs: number;
  /** Wall-clock budget of reading or editing a file above `maxReadBytes`, which happens off the main thread. */
  largeFileTimeoutMs: number;
}

export const DEFAULT_TOOL_LIMITS: Readonly<ToolLimits> = Object.freeze({
  maxPathLength: 1024,
  maxListResults: 1000,
  maxReadBytes: 256 * 1024,
  maxFileBytes: 8 * 1024 * 1024,
  // About 8k tokens: a read of 256 KB was 66k tokens, a third of a 200k window in one result.
  maxResultBytes: 32 * 1024,
  maxWriteBytes: 1024 * 1024,
  maxSearchResults: 200,
  maxSearchLineLength: 300,
  maxScannedFiles: 5000,
  maxSearchBytes: 32 * 1024 * 1024,
  maxQueryLength: 1000,
  searchTimeoutMs: 5000,
  maxCheckedPages: 50_000,
  maxProblems: 500,
  maxCheckedPageBytes: 512 * 1024,
  pageCheckTimeoutMs: 10_000,
  checkDocsTimeoutMs: 5 * 60_000,
  largeFileTimeoutMs: 5000,
});

export function resolveToolLimits(overrides: Partial<ToolLimits> = {}): ToolLimits {
  const limits: ToolLimits = { ...DEFAULT_TOOL_LIMITS };
  for (const key of Object.keys(DEFAULT_TOOL_LIMITS) as Array<keyof ToolLimits>) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value <= 0) {
      throw new RangeError(`Tool limit ${key} must be a positive number, got ${String(value)}.`);
    }
    limits[key] = value;
  }
  return limits;
}
