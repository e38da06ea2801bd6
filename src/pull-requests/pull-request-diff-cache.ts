import { LRUCache } from 'lru-cache';
import { readDiff, tryResolveCommit } from '../git/diff-between.js';
import { diffFiles, type DiffFile } from '../git/diff-files.js';

export interface PullRequestDiff {
  /** Unified diff text (`git diff base...head`), cut at a line end when `diffTruncated`. */
  diff: string;
  diffTruncated: boolean;
  files: DiffFile[];
  filesTruncated: boolean;
}

export interface PullRequestDiffCacheOptions {
  /** Diffs kept at once. */
  maxEntries: number;
  /** Characters kept at once, over all entries (about twice as many bytes). */
  maxCharacters: number;
  /** Bytes of `git diff` output kept for one pull request; a larger diff is cut and flagged. */
  maxDiffBytes: number;
  /** Files listed for one pull request; more are cut and flagged. */
  maxFiles: number;
}

export const DEFAULT_PULL_REQUEST_DIFF_CACHE: PullRequestDiffCacheOptions = {
  maxEntries: 256,
  maxCharacters: 32 * 1024 * 1024,
  maxDiffBytes: 1024 * 1024,
  maxFiles: 3_000,
};

interface DiffSource {
  repository: string;
  baseCommit: string;
  headCommit: string;
}

/** Characters a file entry costs in the cache's budget, roughly. */
const FILE_ENTRY_CHARACTERS = 64;

/**
 * Pull request diffs, keyed by repository and the two commits they compare. Two commit ids
 * name an immutable diff, so an entry is never stale: a push to the branch (or to the base)
 * changes a commit id and with it the key, and the old entry ages out. A view costs two
 * `git rev-parse` calls instead of three `git diff` runs; views that arrive together share
 * one computation (lru-cache's fetch).
 */
export class PullRequestDiffCache {
  private readonly cache: LRUCache<string, PullRequestDiff, DiffSource>;
  /** Diffs computed since start: a view answered from the cache adds nothing. */
  computed = 0;

  constructor(private readonly options: PullRequestDiffCacheOptions = DEFAULT_PULL_REQUEST_DIFF_CACHE) {
    this.cache = new LRUCache<string, PullRequestDiff, DiffSource>({
      max: options.maxEntries,
      maxSize: options.maxCharacters,
      sizeCalculation: (entry) => Math.max(1, entry.diff.length + entry.files.reduce((sum, file) => sum + file.path.length + FILE_ENTRY_CHARACTERS, 0)),
      fetchMethod: async (_key, _stale, { context }) => {
        this.computed += 1;
        const range = [`${context.baseCommit}...${context.headCommit}`];
        const [text, files] = await Promise.all([
          readDiff(context.repository, range, { maxBytes: this.options.maxDiffBytes }),
          diffFiles(context.repository, range, { maxFiles: this.options.maxFiles }),
        ]);
        return {
          diff: text.truncated ? cutAtLineEnd(text.text) : text.text,
          diffTruncated: text.truncated,
          files: files.files,
          filesTruncated: files.truncated,
        };
      },
    });
  }

  /**
   * The diff of `head` since it left `base` (names or commit ids), or null when either is
   * gone; with the two commits it compares, so a view names the very head its diff shows.
   */
  async get(repository: string, base: string, head: string): Promise<(PullRequestDiff & { baseCommit: string; headCommit: string }) | null> {
    const [baseCommit, headCommit] = await Promise.all([tryResolveCommit(repository, base, 'base'), tryResolveCommit(repository, head, 'head')]);
    if (baseCommit === null || headCommit === null) return null;
    const diff = await this.cache.fetch(`${repository}\n${baseCommit}\n${headCommit}`, { context: { repository, baseCommit, headCommit } });
    return diff === undefined ? null : { ...diff, baseCommit, headCommit };
  }
}

/** A cut diff ends with its last whole line, not half a line (or half a character). */
function cutAtLineEnd(text: string): string {
  const end = text.lastIndexOf('\n');
  return end < 0 ? '' : text.slice(0, end + 1);
}
