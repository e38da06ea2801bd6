import type { Dialect } from '../db/database.js';
import type { HitClassifier } from './classification/classify-hit.js';
import type { DeletedProjectData } from './project-data-deletion.js';
import type { NonceClaim } from './verification/nonce-ledger.js';
import type { RangeCatalog } from './verification/range-catalog.js';

/**
 * The signed nonces of a batch (nonce-ledger.ts), claimed in the same transaction that
 * stores its hits: both commit or neither does.
 */
export interface BatchNonces {
  claims: readonly NonceClaim[];
  /** Seconds since the epoch: a row that expired before it is taken over. */
  nowSeconds: number;
  /** Per claim, the dimension id of the "(spoofed)" agent its row becomes if the nonce is taken (relabel-replays.ts); 0 for none. */
  spoofedAgent: Int32Array;
}

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
  /** CATEGORY_CODES of each hit (migration 013). */
  category: Uint8Array;
  /** VERIFICATION_CODES, after the verifier and applyVerification. */
  verification: Uint8Array;
  /** READ_KIND_CODES. */
  readKind: Uint8Array;
  /** HTTP status of the response; 0 when unknown (stored as null). */
  status: Uint16Array;
  /** Dimension id (kind REFERRAL_KIND) of the AI product a human came from; 0 for none (stored as null). */
  referral: Int32Array;
  /** The hit-address-evidence migration: the block of a non-human hit's address (never the address) and what decided its verification. Absent: none. */
  addressBlock?: Array<string | null>;
  evidence?: Uint8Array;
  /** Signed nonces to claim in the insert's transaction; their rows are relabelled `spoofed` when already claimed. Absent: none. */
  nonces?: BatchNonces;
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
 * Raw hits not folded into the rollups yet, as a condition on `analytics_hits` (its
 * columns unqualified) and that condition's parameters, fixed for one read snapshot.
 */
export interface UnfoldedHits {
  condition: string;
  parameters: readonly unknown[];
  /** How many hits are unfolded, of every site (PostgreSQL: its pending batches), for choosing a plan; unset when not known. */
  hits?: number;
}

/**
 * What the report queries need: read SQL, and which raw hits the rollups do not hold yet.
 * Inside `AnalyticsStore.read` both come from one snapshot, so a fold committing meanwhile
 * is either wholly visible or not at all, and every hit is counted once.
 */
export interface AnalyticsReader {
  readonly dialect: Dialect;
  select<Row>(sql: string, parameters: readonly unknown[]): Promise<Row[]>;
  /** Unfolded hits; null or absent when every hit is folded (the rollups alone are then exact). */
  readonly unfolded?: UnfoldedHits | null;
}

/** SQL inside one transaction, with `?` placeholders on both dialects. */
export interface SqlRunner {
  readonly dialect: Dialect;
  all<Row>(sql: string, parameters?: readonly unknown[]): Promise<Row[]>;
  /** Returns the number of rows changed. */
  run(sql: string, parameters?: readonly unknown[]): Promise<number>;
}

/**
 * `background`: the scheduler's fold at a quiet moment, which may wait or skip work that
 * only pays once ingest has stopped; `requested`: someone asked (CLI, tests); `prune`: the
 * fold before a retention prune, which may skip work a prune does not need and that would
 * compete with a bulk load still running (ClickHouse's cell builds of such sites).
 */
export type FoldMode = 'background' | 'requested' | 'prune';

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
  /** Stores the hits, claiming `batch.nonces` in the same transaction (relabelling replays) when present. */
  insertHits(batch: HitBatch): Promise<InsertHitsResult>;
  /**
   * Claims `nonces` in this (main) database and runs `work` with the rows that are replays;
   * when `work` throws, the claim does not stay: for a store that keeps the hits elsewhere
   * (ClickHouse), so a claim stays only when its hits were stored. PostgreSQL holds the
   * claim's transaction open around `work` and rolls it back; SQLite commits the claim first
   * and deletes what it took if `work` throws (its one writer must not wait on the network).
   * Absent on such a store itself.
   */
  claimAround?<T>(nonces: BatchNonces, work: (replays: ReadonlySet<number>) => Promise<T>): Promise<T>;
  /**
   * Folds the raw hits committed so far into the rollups, `chunkSize` hits per
   * transaction, until none are left or `betweenChunks` answers false; returns how many.
   */
  fold(chunkSize: number, betweenChunks?: () => Promise<boolean>, mode?: FoldMode): Promise<number>;
  /** Raw hits not yet folded. */
  pendingHits(): Promise<number>;
  /**
   * Runs `work` on one read snapshot (SQLite: a read transaction on a connection of its
   * own; PostgreSQL: a repeatable-read, read-only transaction), with the unfolded hits of
   * that snapshot. Never folds and never waits for a fold to finish.
   */
  read<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T>;
  /** Releases what the store opened itself (not the database). */
  close(): Promise<void>;
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
  /**
   * Runs `work` in one write transaction that no fold or prune interleaves with (SQLite:
   * the write lock; PostgreSQL: the fold lock), for reclassification. Absent where raw
   * hits cannot be rewritten that way (ClickHouse).
   */
  rebuildTransaction?<T>(work: (runner: SqlRunner) => Promise<T>): Promise<T>;
  /** A store that keeps raw hits elsewhere (ClickHouse) reclassifies them itself. */
  readonly reclassifier?: StoreReclassifier;
}

/** Reclassification of a store's own raw hits (ReclassificationJob); see docs/classification.md. */
export interface StoreReclassifier {
  /** Sites that may have hits from `fromAt` on of another table version. */
  sitesLeft(versionId: number, fromAt: number): Promise<number[]>;
  /**
   * Reclassifies one site from `fromAt` on, re-verifying against `ranges` when given (docs/classification.md,
   * "Re-verification when the ranges change"); the hits brought to the version (0: nothing left, or another run has it).
   */
  reclassifySite(site: number, classifier: HitClassifier, versionId: number, fromAt: number, ranges?: RangeCatalog | null): Promise<SiteReclassification>;
}

/** What reclassifying one site did. */
export interface SiteReclassification {
  /** Hits brought to the new version. */
  rewritten: number;
  /** Of those, the hits whose days are counted again (from the first day where a hit's class or agent changed). */
  refolded: number;
}
