import { LRUCache } from 'lru-cache';
import { readDiff, tryResolveCommit } from '../git/diff-between.js';
import { renderDiffHtml } from './local-pull-request-page.js';

export interface RenderedDiff {
  /** The diff as escaped HTML lines, ready for the page. */
  html: string;
  truncated: boolean;
}

export interface RenderedDiffCacheOptions {
  /** Diffs kept at once. */
  maxEntries: number;
  /** Characters of rendered HTML kept at once, over all entries (about twice as many bytes). */
  maxCharacters: number;
  /** Bytes of `git diff` output read for one page; a larger diff is cut and marked. */
  maxDiffBytes: number;
}

export const DEFAULT_RENDERED_DIFF_CACHE: RenderedDiffCacheOptions = { maxEntries: 256, maxCharacters: 32 * 1024 * 1024, maxDiffBytes: 2_000_000 };

interface DiffSource {
  repository: string;
  baseCommit: string;
  headCommit: string;
}

/**
 * Rendered pull request diffs, keyed by repository and the two commits they compare. Two
 * commit ids name an immutable diff, so an entry is never stale: a push to the branch (or
 * to the base) changes a commit id and with it the key, and the old entry ages out. A view
 * costs two `git rev-parse` calls instead of a `git diff` and its rendering; views that
 * arrive together share one computation (lru-cache's fetch).
 */
export class RenderedDiffCache {
  private readonly cache: LRUCache<string, RenderedDiff, DiffSource>;
  /** Diffs computed since start: a view answered from the cache adds nothing. */
  computed = 0;

  constructor(private readonly options: RenderedDiffCacheOptions = DEFAULT_RENDERED_DIFF_CACHE) {
    this.cache = new LRUCache<string, RenderedDiff, DiffSource>({
      max: options.maxEntries,
      maxSize: options.maxCharacters,
      sizeCalculation: (diff) => Math.max(1, diff.html.length),
      fetchMethod: async (_key, _stale, { context }) => {
        this.computed += 1;
        const diff = await readDiff(context.repository, [`${context.baseCommit}...${context.headCommit}`], { maxBytes: this.options.maxDiffBytes });
        return { html: renderDiffHtml(diff.text), truncated: diff.truncated };
      },
    });
  }

  /** The diff of `head` since it left `base`, or null when either is gone from the repository. */
  async get(repository: string, base: string, head: string): Promise<RenderedDiff | null> {
    const [baseCommit, headCommit] = await Promise.all([tryResolveCommit(repository, base, 'base'), tryResolveCommit(repository, head, 'head')]);
    if (baseCommit === null || headCommit === null) return null;
    const diff = await this.cache.fetch(`${repository}\n${baseCommit}\n${headCommit}`, { context: { repository, baseCommit, headCommit } });
    return diff ?? null;
  }
}
