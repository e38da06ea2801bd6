import type { AnalyticsReader } from './analytics-store.js';
import { ANY_GROUP, DAY_MS } from './analytics-codes.js';
import type { RangePlan } from './range-plan.js';
import {
  AGENTS,
  CRAWLER_CLASSES,
  FOLDED_IN_WHOLE_DAYS,
  HUMAN_OR_AI_MASK,
  IN_WINDOWS,
  PAGES,
  SITE,
  SITE_CLASSES,
  rawHits,
  rawVisitorsSql,
  unfoldedDailySql,
  unfoldedHitsSql,
  windowParameters,
  type GroupCountsRow,
  type RawDimension,
} from './raw-hit-queries.js';
import { rawPagesAndSite } from './postgres-pages-and-site.js';

/** Unique visitors of one dimension and group. */
export interface DimensionCount {
  dim: number;
  grp: number;
  visitors: number;
}

export type Family = 'visitors' | 'traffic';

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
/** The dimensions each family counts from raw hits (edges and unfolded hits). */
const RAW_DIMENSIONS: Record<Family, RawDimension[]> = {
  visitors: [PAGES, SITE],
  traffic: [SITE_CLASSES, CRAWLER_CLASSES, AGENTS],
};

function groupRows(rows: readonly GroupCountsRow[], groups: readonly number[]): DimensionCount[] {
  const counts: DimensionCount[] = [];
  for (const row of rows) {
    for (const grp of groups) {
      const visitors = Number(row[`g${grp}` as 'g1']);
      if (visitors !== 0) counts.push({ dim: Number(row.dim), grp, visitors });
    }
  }
  return counts;
}

/**
 * Unique visitors per dimension and group over a planned range: the rollups, plus the
 * visitors of raw hits (edges, and hits not folded yet) the rollups do not count already.
 * Exact when `reader` is one snapshot (AnalyticsStore.read); a bare store counts
 * nothing unfolded, so its rollups must be folded first.
 */
export async function countVisitors(store: AnalyticsReader, site: number, plan: RangePlan, family: Family): Promise<DimensionCount[]> {
  const counts = new Map<string, DimensionCount>();
  const add = (rows: readonly DimensionCount[]) => {
    for (const row of rows) {
      const key = `${row.dim}:${row.grp}`;
      const known = counts.get(key);
      if (known) known.visitors += Number(row.visitors);
      else counts.set(key, { dim: Number(row.dim), grp: Number(row.grp), visitors: Number(row.visitors) });
    }
  };
  // Issued together: on SQLite the report threads run them side by side (the raw-hit
  // queries of a bulk load are the big ones: pages and the site, each a sort of the hits).
  const wholeDays =
    plan.fromDay < plan.toDay ? WHOLE_DAYS[family].map((sql) => store.select<DimensionCount>(sql, [site, plan.fromDay, plan.toDay, plan.fromDay])) : [];
  const [whole, raw] = await Promise.all([Promise.all(wholeDays), rawVisitorCounts(store, site, plan, family)]);
  for (const rows of [...whole, ...raw]) add(rows);
  return [...counts.values()];
}

/** The raw-hit half of countVisitors: every dimension of the family at once. */
async function rawVisitorCounts(store: AnalyticsReader, site: number, plan: RangePlan, family: Family): Promise<DimensionCount[][]> {
  const raw = rawHits(store, site, plan);
  if (raw === null) return [];
  const whole = [site, plan.fromDay, plan.toDay] as const;
  if (store.dialect === 'postgres' && family === 'visitors') {
    return [groupRows(await rawPagesAndSite(store, raw, whole, plan.fromDay < plan.toDay), [1, 2, 3])];
  }
  const probe = plan.fromDay < plan.toDay && (await store.select(FOLDED_IN_WHOLE_DAYS, whole)).length > 0;
  const parameters = probe ? [...whole, ...raw.parameters] : raw.parameters;
  return Promise.all(
    RAW_DIMENSIONS[family].map(async (dimension) =>
      groupRows(await store.select<GroupCountsRow>(rawVisitorsSql(raw, dimension, probe), parameters), dimension.groups),
    ),
  );
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

/** Hits per class and agent (0: none) over a planned range: the rollups, edges and hits not folded yet. */
export function countHits(store: AnalyticsReader, site: number, plan: RangePlan): Promise<HitCount[]> {
  return sumHitParts(
    store,
    [
      plan.fromDay < plan.toDay ? { sql: WHOLE_DAY_HITS, parameters: [site, plan.fromDay, plan.toDay] } : null,
      plan.edges.length > 0 ? { sql: EDGE_HITS, parameters: [site, ...windowParameters(plan.edges)] } : null,
      unfoldedHitsSql(store, site, plan),
    ],
    (row) => ({ classCode: Number(row.classCode), agent: Number(row.agent), hits: Number(row.hits) }),
    (row) => `${row.classCode}:${row.agent}`,
  );
}

/**
 * Hit counts of one range from its parts (whole-day rollup, edge windows, unfolded hits):
 * a hit is in exactly one part, so the sums per key are exact. The parts are independent
 * and issued together, so the report threads share them out.
 */
export async function sumHitParts<Row extends { hits: number }>(
  store: AnalyticsReader,
  parts: ReadonlyArray<{ sql: string; parameters: readonly unknown[] } | null>,
  normalise: (row: Row) => Row,
  keyOf: (row: Row) => string,
): Promise<Row[]> {
  const counts = new Map<string, Row>();
  const queries = parts.flatMap((part) => (part === null ? [] : [store.select<Row>(part.sql, part.parameters)]));
  for (const rows of await Promise.all(queries)) {
    for (const raw of rows) {
      const row = normalise(raw);
      const key = keyOf(row);
      const known = counts.get(key);
      if (known) known.hits += row.hits;
      else counts.set(key, row);
    }
  }
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
export async function countDaily(store: AnalyticsReader, site: number, plan: RangePlan): Promise<DayCount[]> {
  const rows: DayCount[] = [];
  if (plan.fromDay < plan.toDay) {
    for (const row of await store.select<DayCount>(WHOLE_DAYS_DAILY, [site, plan.fromDay, plan.toDay])) {
      rows.push({ day: Number(row.day), grp: Number(row.grp), visitors: Number(row.visitors) });
    }
  }
  const unfolded = unfoldedDailySql(store, site, plan);
  if (unfolded !== null) {
    for (const row of groupRows(await store.select<GroupCountsRow>(unfolded.sql, unfolded.parameters), [1, 2, 3])) {
      rows.push({ day: row.dim, grp: row.grp, visitors: row.visitors });
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
