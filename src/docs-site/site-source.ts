/** What reading one file of a site gave. */
export type SourceFile =
  | { status: 'read'; bytes: Uint8Array }
  /** Larger than the caller's cap: not read. */
  | { status: 'too-large'; size: number }
  /** Gone, not a regular file, or unreadable. */
  | { status: 'missing' };

/**
 * One snapshot of a repository's files: the working tree, or a commit. Paths are
 * relative to the snapshot's root with `/` separators; symbolic links and submodules are
 * not files of a site (Mintlify does not follow them into the build either).
 */
export interface SiteSource {
  /** Every regular file, sorted. Dependencies and build output (node_modules, .git) are left out. */
  listFiles(): Promise<string[]>;
  /** Reads these files, each capped at `maxBytes`. */
  readFiles(paths: readonly string[], maxBytes: number): Promise<Map<string, SourceFile>>;
}

/**
 * A file's text when it is valid UTF-8, else undefined. The byte-order mark is kept, as
 * the editing tools keep it.
 */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
