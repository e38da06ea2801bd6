import type { AnalyticsReader } from './analytics-store.js';
import { DAY_MS } from './analytics-codes.js';
import type { RangePlan, TimeWindow } from './range-plan.js';

/**
 * The raw-hit half of a report: hits the rollups cannot answer for. Those are the hits in
 * the parts of a day a date-time bound cuts off ("edges"), and the hits inside the whole
 * days that no fold has reached yet ("unfolded"). Both are counted from `analytics_hits`
 * in the report's snapshot; a visitor found there counts unless the rollups already count
 * them for the same dimension and group (a folded visit day inside the whole days).
 */
export interface RawHits {
  /** A derived table with columns page, visitor, class, agent, at. */
  sql: string;
  parameters: unknown[];
}

const NO_WINDOW: TimeWindow = { start: 0, end: 0 };
const IN_WINDOWS = '((at >= ? and at < ?) or (at >= ? and at < ?))';
const COLUMNS = 'page, visitor, class, agent, at';
export const HUMAN_OR_AI_MASK = 'max(case when class = 1 then 1 else 0 end) + max(case when class = 2 then 2 else 0 end)';

/** Edge windows as four parameters (two windows, the second possibly empty) for IN_WINDOWS. */
export function windowParameters(edges: readonly TimeWindow[]): number[] {
  const [first = NO_WINDOW, second = NO_WINDOW] = edges;
  if (edges.length > 2) throw new Error('a range has at most two edges');
  return [first.start, first.end, second.start, second.end];
}

/**
 * Unfolded hits of the site inside [fromMs, toMs): `+` keeps site and time from choosing
 * the (site, at) index, which would read every hit of the range; the unfolded condition
 * (a sequence range on SQLite, the pending batches on PostgreSQL) finds the few.
 */
function unfoldedPart(reader: AnalyticsReader, site: number, fromMs: number, toMs: number, columns: string): RawHits | null {
  const unfolded = reader.unfolded;
  if (unfolded === undefined || unfolded === null || fromMs >= toMs) return null;
  return {
    sql: `select ${columns} from analytics_hits where ${unfolded.condition} and +site = ? and +at >= ? and +at < ?`,
    parameters: [...unfolded.parameters, site, fromMs, toMs],
  };
}

function wholeDayMs(plan: RangePlan): { fromMs: number; toMs: number } {
  return { fromMs: plan.fromDay * DAY_MS, toMs: plan.toDay * DAY_MS };
}

/** Edge hits and unfolded whole-day hits; the two never overlap (edges lie outside the whole days). Null when there are none to read. */
export function rawHits(reader: AnalyticsReader, site: number, plan: RangePlan): RawHits | null {
  const parts: RawHits[] = [];
  if (plan.edges.length > 0) {
    parts.push({ sql: `select ${COLUMNS} from analytics_hits where site = ? and ${IN_WINDOWS}`, parameters: [site, ...windowParameters(plan.edges)] });
  }
  const { fromMs, toMs } = wholeDayMs(plan);
  const unfolded = unfoldedPart(reader, site, fromMs, toMs, COLUMNS);
  if (unfolded !== null) parts.push(unfolded);
  if (parts.length === 0) return null;
  return { sql: parts.map((part) => part.sql).join(' union all '), parameters: parts.flatMap((part) => part.parameters) };
}

/** Per group: seen in the raw hits (mask) and not already counted by the rollups (folded). */
export const GROUP_COUNTS = `
  sum(case when (mask & 1) != 0 and (folded & 1) = 0 then 1 else 0 end) as g1,
  sum(case when (mask & 2) != 0 and (folded & 2) = 0 then 1 else 0 end) as g2,
  sum(case when (mask & 3) != 0 and (folded & 3) = 0 then 1 else 0 end) as g3,
  sum(case when (mask & 4) != 0 and (folded & 4) = 0 then 1 else 0 end) as g4`;

export interface GroupCountsRow {
  dim: number;
  g1: number;
  g2: number;
  g3: number;
  g4: number;
}

/** A set of dimensions counted from raw hits: which hits, what dimension and groups they give. */
export interface RawDimension {
  /** The dimension as an expression over the raw hit h (grouped by `groupBy`). */
  dim: string;
  groupBy: string;
  filter: string;
  mask: string;
  /** Groups reported for these dimensions. */
  groups: readonly number[];
}

export const PAGES: RawDimension = { dim: 'h.page', groupBy: 'h.page, h.visitor', filter: 'h.class <= 2', mask: HUMAN_OR_AI_MASK, groups: [1, 2, 3] };
export const SITE: RawDimension = { dim: '0', groupBy: 'h.visitor', filter: 'h.class <= 2', mask: HUMAN_OR_AI_MASK, groups: [1, 2, 3] };
export const SITE_CLASSES: RawDimension = { ...SITE, groups: [1, 2] };
export const CRAWLER_CLASSES: RawDimension = { dim: '-h.class', groupBy: 'h.class, h.visitor', filter: 'h.class >= 3', mask: '4', groups: [4] };
export const AGENTS: RawDimension = { dim: 'h.agent', groupBy: 'h.agent, h.visitor', filter: 'h.agent is not null', mask: '4', groups: [4] };

/**
 * Unique visitors of raw hits per dimension, minus those with a folded visit day of the
 * same group inside the whole days (one probe per visitor and dimension; the masks of
 * every group at once). With `probe`, takes (site, fromDay, toDay, ...raw parameters);
 * without (no hit in the whole days is folded), only the raw parameters.
 */
export function rawVisitorsSql(raw: RawHits, dimension: RawDimension, probe: boolean): string {
  const folded = probe
    ? `coalesce((select max(v.mask & 1) + max(v.mask & 2) + max(v.mask & 4) from analytics_visit_days v
        where v.site = ? and v.dim = ${dimension.dim} and v.visitor = h.visitor and v.day >= ? and v.day < ?), 0)`
    : '0';
  return `select dim, ${GROUP_COUNTS} from (
    select ${dimension.dim} as dim, ${dimension.mask} as mask, ${folded} as folded
    from (${raw.sql}) h where ${dimension.filter} group by ${dimension.groupBy}
  ) counted group by dim`;
}

/**
 * Whether any hit inside the whole days is folded: hit counts are written by the same
 * fold as visit days, and never pruned, so without one there is no visit day to probe
 * for (the first report after a bulk load into a fresh site skips a probe per visitor).
 */
export const FOLDED_IN_WHOLE_DAYS = 'select 1 as found from analytics_hit_counts where site = ? and day >= ? and day < ? limit 1';

/**
 * Site-wide visitors per whole day from unfolded hits, minus those whose visit day that
 * day is folded with the same group. Null when nothing is unfolded.
 */
export function unfoldedDailySql(reader: AnalyticsReader, site: number, plan: RangePlan): RawHits | null {
  const { fromMs, toMs } = wholeDayMs(plan);
  const unfolded = unfoldedPart(reader, site, fromMs, toMs, `at / ${DAY_MS} as day, visitor, class`);
  if (unfolded === null) return null;
  return {
    sql: `select day as dim, ${GROUP_COUNTS} from (
      select h.day, ${HUMAN_OR_AI_MASK} as mask,
        coalesce((select v.mask from analytics_visit_days v where v.site = ? and v.dim = 0 and v.visitor = h.visitor and v.day = h.day), 0) as folded
      from (${unfolded.sql} and class <= 2) h group by h.day, h.visitor
    ) counted group by day`,
    parameters: [site, ...unfolded.parameters],
  };
}

/** Hits per class and agent of the unfolded hits inside the whole days; null when nothing is unfolded. */
export function unfoldedHitsSql(reader: AnalyticsReader, site: number, plan: RangePlan): RawHits | null {
  const { fromMs, toMs } = wholeDayMs(plan);
  const unfolded = unfoldedPart(reader, site, fromMs, toMs, 'class, agent');
  if (unfolded === null) return null;
  return {
    sql: `select class as "classCode", coalesce(agent, 0) as agent, count(*) as hits from (${unfolded.sql}) h group by class, coalesce(agent, 0)`,
    parameters: unfolded.parameters,
  };
}

/** Human and ai hits per page and class of the unfolded hits inside the whole days; null when nothing is unfolded. */
export function unfoldedPageViewsSql(reader: AnalyticsReader, site: number, plan: RangePlan): RawHits | null {
  const { fromMs, toMs } = wholeDayMs(plan);
  const unfolded = unfoldedPart(reader, site, fromMs, toMs, 'page, class');
  if (unfolded === null) return null;
  return {
    sql: `select page, class as "classCode", count(*) as hits from (${unfolded.sql}) h where class <= 2 group by page, class`,
    parameters: unfolded.parameters,
  };
}

export { IN_WINDOWS };
