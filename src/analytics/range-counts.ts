import type { AnalyticsReader, AnalyticsStore } from './analytics-store.js';
import { countPageViews, type PageViewCount } from './page-view-queries.js';
import type { RangePlan } from './range-plan.js';
import { SQL_HITS, type HitSql } from './reports/hit-sql.js';
import { countDaily, countHits, countVisitors, type DayCount, type DimensionCount, type Family, type HitCount } from './rollup-queries.js';

/**
 * The counts the reports are built from, over a planned range. The SQL stores answer
 * them with the shared queries of rollup-queries.ts; another engine (ClickHouse) brings
 * its own, with the same rows and the same exactness.
 */
export interface RangeCounter {
  countVisitors(site: number, plan: RangePlan, family: Family): Promise<DimensionCount[]>;
  countHits(site: number, plan: RangePlan): Promise<HitCount[]>;
  countDaily(site: number, plan: RangePlan): Promise<DayCount[]>;
  countPageViews(site: number, plan: RangePlan): Promise<PageViewCount[]>;
  /** Rows of a query over the raw hits, written for this engine's dialect (reports/hit-sql.ts). */
  selectHits<Row>(site: number, query: (dialect: HitSql) => string): Promise<Row[]>;
}

/** A store whose reports come from its own counter rather than the shared SQL. */
export interface CountingStore extends AnalyticsStore {
  readonly counter: RangeCounter;
}

const counterOf = (store: AnalyticsReader): RangeCounter | undefined => ('counter' in store ? (store as CountingStore).counter : undefined);

export function visitorCounts(store: AnalyticsReader, site: number, plan: RangePlan, family: Family): Promise<DimensionCount[]> {
  return counterOf(store)?.countVisitors(site, plan, family) ?? countVisitors(store, site, plan, family);
}

export function hitCounts(store: AnalyticsReader, site: number, plan: RangePlan): Promise<HitCount[]> {
  return counterOf(store)?.countHits(site, plan) ?? countHits(store, site, plan);
}

export function dailyCounts(store: AnalyticsReader, site: number, plan: RangePlan): Promise<DayCount[]> {
  return counterOf(store)?.countDaily(site, plan) ?? countDaily(store, site, plan);
}

export function pageViewCounts(store: AnalyticsReader, site: number, plan: RangePlan): Promise<PageViewCount[]> {
  return counterOf(store)?.countPageViews(site, plan) ?? countPageViews(store, site, plan);
}

/** Rows of a query over the raw hits, in the reader's snapshot (SQL) or from the engine's own raw table (ClickHouse). */
export function hitRows<Row>(store: AnalyticsReader, site: number, query: (dialect: HitSql) => string): Promise<Row[]> {
  return counterOf(store)?.selectHits<Row>(site, query) ?? store.select<Row>(query(SQL_HITS), []);
}
