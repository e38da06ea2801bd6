import type { Dialect } from '../db/database.js';

/** One raw hit as stored: no IP address, every string dictionary-encoded except the referrer. */
export interface HitRow {
  site: number;
  at: number;
  page: number;
  visitor: bigint;
  classCode: number;
  agent: number | null;
  userAgent: number | null;
  referrer: string | null;
  /** 1 when the request's Accept header preferred Markdown: kept so history can be reclassified. */
  markdownAccept: number;
  classifierVersion: number;
  eventId: string | null;
}

export interface InsertHitsResult {
  stored: number;
  /** Rows skipped because their event id was already stored (earlier, or earlier in this batch). */
  duplicates: number;
}

export interface PruneCounts {
  hits: number;
  eventIds: number;
  visitDays: number;
}

/**
 * The dialect-specific half of analytics storage: bulk writes, the fold of raw hits into
 * the rollups, and read queries. Read SQL is shared and written with `?` placeholders.
 */
export interface AnalyticsStore {
  readonly dialect: Dialect;
  siteOf(projectId: string): Promise<number | null>;
  ensureSite(projectId: string): Promise<number>;
  /** Ids of dictionary rows (pages, agents), created when missing. */
  ensureDimensions(site: number, kind: number, names: readonly string[]): Promise<Map<string, number>>;
  ensureUserAgents(userAgents: readonly string[]): Promise<Map<string, number>>;
  ensureClassifierVersion(version: string): Promise<number>;
  insertHits(rows: readonly HitRow[]): Promise<InsertHitsResult>;
  /** Folds every raw hit committed so far into the rollups, `chunkSize` hits per transaction; returns how many. */
  fold(chunkSize: number, yieldBetweenChunks?: () => Promise<void>): Promise<number>;
  /** Raw hits not yet folded. */
  pendingHits(): Promise<number>;
  select<Row>(sql: string, parameters: readonly unknown[]): Promise<Row[]>;
  /** Deletes raw hits and event ids older than `before`, and visit days no future hit can need. */
  prune(before: number): Promise<PruneCounts>;
  prunedBefore(): Promise<number>;
}
