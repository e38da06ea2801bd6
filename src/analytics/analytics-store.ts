import type { Dialect } from '../db/database.js';
import type { DeletedProjectData } from './project-data-deletion.js';

/**
 * Raw hits of one site to store, column by column: no IP address, every string
 * dictionary-encoded except the referrer.
 */
export interface HitBatch {
  site: number;
  count: number;
  at: Float64Array;
  page: Int32Array;
  visitor: BigInt64Array;
  classCode: Uint8Array;
  /** Dimension id of the agent; 0 for none. */
  agent: Int32Array;
  /** Dictionary id of the user agent; 0 for none. */
  userAgent: Int32Array;
  referrer: Array<string | null>;
  /** 1 when the request's Accept header preferred Markdown: kept so history can be reclassified. */
  markdownAccept: Uint8Array;
  classifierVersion: number;
  eventId: Array<string | null>;
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
  insertHits(batch: HitBatch): Promise<InsertHitsResult>;
  /**
   * Folds the raw hits committed so far into the rollups, `chunkSize` hits per
   * transaction, until none are left or `betweenChunks` answers false; returns how many.
   */
  fold(chunkSize: number, betweenChunks?: () => Promise<boolean>): Promise<number>;
  /** Raw hits not yet folded. */
  pendingHits(): Promise<number>;
  select<Row>(sql: string, parameters: readonly unknown[]): Promise<Row[]>;
  /** Deletes raw hits and event ids older than `before`, and visit days no future hit can need. */
  prune(before: number): Promise<PruneCounts>;
  prunedBefore(): Promise<number>;
  /**
   * Deletes every analytics row of the project (hits, rollups, its dictionary entries,
   * beacon cap rows, pending batches, its site), `batchRows` rows per transaction.
   * Safe to repeat: a second call finds nothing. It needs the project's site row, which
   * the foreign key drops with the project, so call it before deleting the project.
   */
  deleteProjectData(projectId: string, batchRows?: number): Promise<DeletedProjectData>;
}
