import type { DocsProblem } from './docs-problem.js';
import type { SiteIndex } from './site-index.js';

/** A base snapshot's finished index and its problems, shared read-only by the jobs on that commit. */
export interface KeptBase {
  index: SiteIndex;
  problems: readonly DocsProblem[];
}

export interface BaseIndexCacheOptions {
  /** Most indexes kept. Default 16. */
  maxEntries?: number;
  /** Most bytes kept, by each index's own estimate (`SiteIndex.approximateBytes`). Default 256 MiB. */
  maxBytes?: number;
}

export const DEFAULT_KEPT_BASES = 16;
export const DEFAULT_KEPT_BASE_BYTES = 256 * 1024 * 1024;

interface Entry {
  promise: Promise<KeptBase>;
  /** Known once the build settled and was kept. */
  bytes: number;
}

/**
 * The docs check's analyses of base commits, kept by one process for the next job on the
 * same commit: a commit id names its whole tree, so its index is the same in every job
 * (the key also carries the check's limits, which change what is reported). A job copies
 * the index before updating it (`SiteState.fromIndex`), so no job sees another's edits.
 *
 * Bounded by count and by an estimate of memory, least recently used first out. Jobs that
 * ask while a build runs wait for that build; a build that failed, or that left pages
 * unchecked for time or memory, is not kept.
 */
export class BaseIndexCache {
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly entries = new Map<string, Entry>();
  private heldBytes = 0;
  /** Answers from a kept or running build, and builds started (for tests and the benchmark). */
  hits = 0;
  misses = 0;

  constructor(options: BaseIndexCacheOptions = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_KEPT_BASES);
    this.maxBytes = Math.max(0, options.maxBytes ?? DEFAULT_KEPT_BASE_BYTES);
  }

  /** Indexes kept or being built. */
  get size(): number {
    return this.entries.size;
  }

  /** Estimated bytes of the kept indexes. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** The kept base under `key`, or the one `build` makes (kept for later if it is reliable and fits). */
  get(key: string, build: () => Promise<SiteIndex>): Promise<KeptBase> {
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.hits += 1;
      // Re-inserted: the map's order is the order of last use.
      this.entries.delete(key);
      this.entries.set(key, known);
      return known.promise;
    }
    this.misses += 1;
    const entry: Entry = { promise: build().then((index) => ({ index, problems: index.problems() })), bytes: 0 };
    this.entries.set(key, entry);
    entry.promise.then(
      ({ index }) => {
        if (this.entries.get(key) !== entry) return;
        if (!index.reliable || index.approximateBytes > this.maxBytes) {
          this.entries.delete(key);
          return;
        }
        entry.bytes = index.approximateBytes;
        this.heldBytes += entry.bytes;
        this.evict(key);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.promise;
  }

  /** Drops least recently used entries (never `keep`) until both bounds hold. */
  private evict(keep: string): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.heldBytes <= this.maxBytes) return;
      if (key === keep) continue;
      this.entries.delete(key);
      this.heldBytes -= entry.bytes;
    }
  }
}
