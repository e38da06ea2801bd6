import type { AnalyticsStore } from './analytics-store.js';
import { ANY_GROUP, DAY_MS } from './analytics-codes.js';
import type { RangePlan, TimeWindow } from './range-plan.js';

/** Unique visitors of one dimension and group. */
export interface DimensionCount {
  dim: number;
  grp: number;
  visitors: number;
}

export type Family = 'visitors' | 'traffic';

const NO_WINDOW: TimeWindow = { start: 0, end: 0 };

/** Edge windows as four parameters (two windows, the second possibly empty) for `IN_WINDOWS`. */
function windowParameters(edges: readonly TimeWindow[]): number[] {
  const [first = NO_WINDOW, second = NO_WINDOW] = edges;
  if (edges.length > 2) throw new Error('a range has at most two edges');
  return [first.start, first.end, second.start, second.end];
}
const IN_WINDOWS = '((at >= ? and at < ?) or (at >= ? and at < ?))';
const HUMAN_OR_AI_MASK = 'max(case when class = 1 then 1 else 0 end) + max(case when class = 2 then 2 else 0 end)';

/**
 * Whole days: a visitor's record counts when it is their first visit day in range, i.e.
 * day in [fromDay, toDay) and previous visit day before fromDay. Grouped in key order
 * (grp, dim), so SQLite aggregates while it scans.
 */
const WHOLE_DAYS_FOR = (groups: string) => `
  select grp, dim, sum(visitors) as visitors from analytics_visitor_counts
  where site = ? and ${groups} and day >= ? and day < ? and prev < ?
  group by grp, dim`;
/** visitors: pages and the site, groups human, ai, either. traffic: crawler classes and agents, plus the site's human and ai. */
const WHOLE_DAYS: Record<Family, string[]> = {
  visitors: [WHOLE_DAYS_FOR('grp in (1, 2, 3)')],
  traffic: [WHOLE_DAYS_FOR(`grp = ${ANY_GROUP}`), WHOLE_DAYS_FOR('grp in (1, 2) and dim = 0')],
};

/**
 * Edges: visitors seen in the cut-off parts of a day, minus those already counted for
 * the whole days (they have a visit day of the same group there).
 */
const NOT_IN_WHOLE_DAYS = `not exists (select 1 from analytics_visit_days v
  where v.site = ? and v.dim = k.dim and v.visitor = k.visitor and v.day >= ? and v.day < ? and (v.mask & g.grp) != 0)`;

const EDGE_VISITORS = `
  with edge as (
    select page, visitor, ${HUMAN_OR_AI_MASK} as mask from analytics_hits
    where site = ? and class <= 2 and ${IN_WINDOWS} group by page, visitor
  ),
  keyed (dim, visitor, mask) as (
    select page, visitor, mask from edge
    union all
    select 0, visitor, max(mask & 1) + max(mask & 2) from edge group by visitor
  ),
  grps (grp) as (values (1), (2), (3))
  select k.dim, g.grp, count(*) as visitors from keyed k join grps g on (k.mask & g.grp) != 0
  where ${NOT_IN_WHOLE_DAYS}
  group by k.dim, g.grp`;

const EDGE_TRAFFIC = `
  with keyed (dim, visitor, mask) as (
    select distinct -class, visitor, ${ANY_GROUP} from analytics_hits where site = ? and class >= 3 and ${IN_WINDOWS}
    union all
    select distinct agent, visitor, ${ANY_GROUP} from analytics_hits where site = ? and agent is not null and ${IN_WINDOWS}
    union all
    select 0, visitor, ${HUMAN_OR_AI_MASK} from analytics_hits where site = ? and class <= 2 and ${IN_WINDOWS} group by visitor
  ),
  grps (grp) as (values (1), (2), (${ANY_GROUP}))
  select k.dim, g.grp, count(*) as visitors from keyed k join grps g on (k.mask & g.grp) != 0
  where ${NOT_IN_WHOLE_DAYS}
  group by k.dim, g.grp`;

/** Unique visitors per dimension and group over a planned range; rollups must be folded first. */
export async function countVisitors(store: AnalyticsStore, site: number, plan: RangePlan, family: Family): Promise<DimensionCount[]> {
  const counts = new Map<string, DimensionCount>();
  const add = (rows: readonly DimensionCount[]) => {
    for (const row of rows) {
      const key = `${row.dim}:${row.grp}`;
      const known = counts.get(key);
      if (known) known.visitors += Number(row.visitors);
      else counts.set(key, { dim: Number(row.dim), grp: Number(row.grp), visitors: Number(row.visitors) });
    }
  };
  if (plan.fromDay < plan.toDay) {
    for (const sql of WHOLE_DAYS[family]) add(await store.select<DimensionCount>(sql, [site, plan.fromDay, plan.toDay, plan.fromDay]));
  }
  if (plan.edges.length > 0) {
    const windows = windowParameters(plan.edges);
    const whole = [site, plan.fromDay, plan.toDay];
    const parameters = family === 'visitors' ? [site, ...windows, ...whole] : [site, ...windows, site, ...windows, site, ...windows, ...whole];
    add(await store.select<DimensionCount>(family === 'visitors' ? EDGE_VISITORS : EDGE_TRAFFIC, parameters));
  }
  return [...counts.values()];
}

export interface HitCount {
  classCode: number;
  agent: number;
  hits: number;
}

const WHOLE_DAY_HITS = `select class as "classCode", agent, sum(hits) as hits from analytics_hit_counts
  where site = ? and day >= ? and day < ? group by class, agent`;
const EDGE_HITS = `select class as "classCode", coalesce(agent, 0) as agent, count(*) as hits from analytics_hits
  where site = ? and ${IN_WINDOWS} group by class, coalesce(agent, 0)`;

/** Hits per class and agent (0: none) over a planned range. */
export async function countHits(store: AnalyticsStore, site: number, plan: RangePlan): Promise<HitCount[]> {
  const counts = new Map<string, HitCount>();
  const add = (rows: readonly HitCount[]) => {
    for (const row of rows) {
      const key = `${row.classCode}:${row.agent}`;
      const known = counts.get(key);
      if (known) known.hits += Number(row.hits);
      else counts.set(key, { classCode: Number(row.classCode), agent: Number(row.agent), hits: Number(row.hits) });
    }
  };
  if (plan.fromDay < plan.toDay) add(await store.select<HitCount>(WHOLE_DAY_HITS, [site, plan.fromDay, plan.toDay]));
  if (plan.edges.length > 0) add(await store.select<HitCount>(EDGE_HITS, [site, ...windowParameters(plan.edges)]));
  return [...counts.values()];
}

export interface DayCount {
  day: number;
  grp: number;
  visitors: number;
}

const WHOLE_DAYS_DAILY = `select day, grp, sum(visitors) as visitors from analytics_visitor_counts
  where site = ? and dim = 0 and grp in (1, 2, 3) and day >= ? and day < ? group by day, grp`;
const PART_OF_DAY = `
  with seen as (
    select visitor, ${HUMAN_OR_AI_MASK} as mask from analytics_hits
    where site = ? and class <= 2 and at >= ? and at < ? group by visitor
  ),
  grps (grp) as (values (1), (2), (3))
  select g.grp, count(*) as visitors from seen s join grps g on (s.mask & g.grp) != 0 group by g.grp`;

/** Site-wide unique visitors per UTC day and group; a day cut by a date-time bound counts only its part in range. */
export async function countDaily(store: AnalyticsStore, site: number, plan: RangePlan): Promise<DayCount[]> {
  const rows: DayCount[] = [];
  if (plan.fromDay < plan.toDay) {
    for (const row of await store.select<DayCount>(WHOLE_DAYS_DAILY, [site, plan.fromDay, plan.toDay])) {
      rows.push({ day: Number(row.day), grp: Number(row.grp), visitors: Number(row.visitors) });
    }
  }
  for (const edge of plan.edges) {
    // An edge may span the end of one day and the start of the next: each day is its own bucket.
    for (let start = edge.start; start < edge.end;) {
      const day = Math.floor(start / DAY_MS);
      const end = Math.min(edge.end, (day + 1) * DAY_MS);
      for (const row of await store.select<{ grp: number; visitors: number }>(PART_OF_DAY, [site, start, end])) {
        rows.push({ day, grp: Number(row.grp), visitors: Number(row.visitors) });
      }
      start = end;
    }
  }
  return rows;
}
