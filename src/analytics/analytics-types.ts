import type { HitClass } from './classification/classify-hit.js';
import type { EventRejection } from './event-validation.js';

export interface VisitorCounts {
  human: number;
  ai: number;
  total: number;
}

export interface PageVisitors extends VisitorCounts {
  path: string;
}

/** The visitors endpoint's answer (interface.md, "Get unique visitors"). */
export interface VisitorsResult {
  totals: VisitorCounts;
  visitors: PageVisitors[];
  hasMore: boolean;
}

/**
 * The views endpoint's answer: the visitors answer's shape with view counts. A view is a
 * stored hit of class human or ai, so each `total` is `human + ai`.
 */
export interface ViewsResult {
  totals: VisitorCounts;
  views: PageVisitors[];
  hasMore: boolean;
}

/** A range in milliseconds since the epoch: `from` inclusive, `to` exclusive, null = open. */
export interface TimeRange {
  from?: number | null;
  to?: number | null;
}

/** What the visitors report ranks pages by; ties are always broken by path ascending. */
export const VISITORS_SORTS = ['total', 'human', 'ai', 'path'] as const;
export type VisitorsSort = (typeof VISITORS_SORTS)[number];
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export interface VisitorsQuery extends TimeRange {
  /** 1 to 250, default 50. */
  limit?: number;
  /** At least 0, default 0. */
  offset?: number;
  /** Default total. */
  sort?: VisitorsSort;
  /** Default desc for the counts, asc for path. */
  order?: SortOrder;
}

export interface DayVisitors extends VisitorCounts {
  /** UTC date, YYYY-MM-DD. */
  date: string;
}

export interface DailyResult {
  /** The range answered, ISO 8601 (defaults filled in). */
  dateFrom: string;
  dateTo: string;
  days: DayVisitors[];
}

export interface ClassTraffic {
  class: HitClass;
  hits: number;
  visitors: number;
}

export interface AgentTraffic {
  agent: string;
  class: HitClass;
  hits: number;
  visitors: number;
}

export interface TrafficResult {
  classes: ClassTraffic[];
  agents: AgentTraffic[];
  /** True when agents beyond the returned ones had hits in range. */
  hasMoreAgents: boolean;
}

export interface IngestOptions {
  /** Instant the batch arrived; stamps events without a timestamp. Default: the clock's now. */
  receivedAt?: number;
  /** The hosts a signature's @authority must name, instead of the project's site (the beacon: the server's own host). */
  authorities?: readonly string[];
}

export interface IngestResult {
  /** Valid events: stored now, or already stored under the same event id. */
  accepted: number;
  /** How many of the accepted were already stored (a retried event id). */
  duplicates: number;
  rejected: EventRejection[];
}
