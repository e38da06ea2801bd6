import type { FieldMap } from './field-map.js';
import type { LogFormatChoice } from './log-format.js';
import type { NotPageReason, PageRuleOptions } from './page-rule.js';
import type { Clock } from '../../core/clock.js';

/** One page view as sent to `POST /v1/analytics/{projectId}/events`. */
export interface ImportHit {
  /** Deterministic per log line, so the server can count a re-imported line once. */
  id: string;
  /** ISO 8601, UTC, millisecond precision. */
  timestamp: string;
  path: string;
  userAgent?: string;
  ip?: string;
  visitorId?: string;
  accept?: string;
  referrer?: string;
  /** The logged HTTP status. */
  status?: number;
}

export interface SendResult {
  accepted: number;
  rejected: number;
  /** The rejected hits by the server's code (`invalid_path`, `timestamp_too_old`, …); counts adding up to `rejected`. */
  rejectedByCode?: Record<string, number>;
}

export type SendHits = (hits: ImportHit[]) => Promise<SendResult>;

export interface ImportOptions {
  files: readonly string[];
  /** Default `auto`: detected per file from its first recognizable line. */
  format?: LogFormatChoice;
  /** Where JSON lines keep each value; see DEFAULT_FIELD_MAP. */
  fieldMap?: FieldMap;
  /** Hits per `send`, 1 to 1,000 (the events endpoint's limit). Default 1,000. */
  batchSize?: number;
  /** Batches sent but not yet answered before reading pauses, 1 or 2. Default 2. */
  maxBatchesInFlight?: number;
  /** Delivers one batch. Retrying transient failures is its job; a thrown error stops the import. */
  send: SendHits;
  onProgress?: (progress: ImportProgress) => void;
  signal?: AbortSignal;
  pageRule?: PageRuleOptions;
  /** How many malformed lines to quote in the summary. Default 10. */
  maxMalformedExamples?: number;
  clock?: Clock;
}

export interface MalformedLineExample {
  file: string;
  /** 1-based. */
  line: number;
  reason: string;
  /** The start of the line. */
  text: string;
}

export interface FileFailure {
  file: string;
  /** Lines of the file read before the failure were imported. */
  message: string;
}

/** Lines that are valid requests but not page views, by the first reason (page-rule.ts); they add up to `skippedNotPage`. */
export type NotPageCounts = Record<NotPageReason, number>;

/** Counters shared by progress reports and the summary. Every non-empty line is exactly one of hits, skippedNotPage, malformed. */
export interface ImportCounters {
  /** Non-empty lines read. */
  lines: number;
  /** Hits sent: page views, and the agents' 4xx requests (`agentErrors`). */
  hits: number;
  /**
   * Of `hits`: requests answered 4xx whose user agent names an agent, crawler or bot, sent
   * with their status for the agent-errors report (docs/import.md, "Agents' 4xx").
   */
  agentErrors: number;
  skippedNotPage: number;
  notPages: NotPageCounts;
  malformed: number;
  /** Damaged lines (a quote left open) read by the lenient fallback; each is also a hit or not a page. */
  salvaged: number;
  /** Hits sent without a user agent (a common-format log): the server classes them as `bot`. */
  hitsWithoutUserAgent: number;
  /** As reported by `send`. */
  accepted: number;
  rejected: number;
  /** `rejected` by the server's code; `unspecified` when `send` did not say. */
  rejectedByCode: Record<string, number>;
}

export interface ImportProgress extends ImportCounters {
  file: string;
  /** 0-based index into `files`. */
  fileIndex: number;
  fileCount: number;
  /** Bytes read on disk across all files; compressed bytes for gzip. */
  bytesRead: number;
  totalBytes: number;
  elapsedSeconds: number;
}

export interface ImportSummary extends ImportCounters {
  files: number;
  bytes: number;
  seconds: number;
  malformedExamples: MalformedLineExample[];
  /** Files that could not be read to the end (a truncated gzip, a read error). */
  failedFiles: FileFailure[];
}
