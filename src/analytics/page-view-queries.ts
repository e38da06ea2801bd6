import type { AnalyticsReader } from './analytics-store.js';
import type { RangePlan } from './range-plan.js';
import { IN_WINDOWS, unfoldedPageViewsSql, windowParameters } from './raw-hit-queries.js';

/** Views (hits) of one page and class (human or ai). */
export interface PageViewCount {
  page: number;
  classCode: number;
  hits: number;
}

const WHOLE_DAY_VIEWS = `select page, class as "classCode", sum(hits) as hits from analytics_page_view_counts
  where site = ? and day >= ? and day < ? group by page, class`;
const EDGE_VIEWS = `select page, class as "classCode", count(*) as hits from analytics_hits
  where site = ? and ${IN_WINDOWS} and class <= 2 group by page, class`;

/**
 * Human and ai views per page over a planned range: the page-view rollup for the folded
 * hits of whole days, raw hits for the edges and for the hits no fold has reached yet.
 * A hit is in exactly one of the three, so the sums are exact (views need no dedup).
 */
export async function countPageViews(store: AnalyticsReader, site: number, plan: RangePlan): Promise<PageViewCount[]> {
  const counts = new Map<string, PageViewCount>();
  const add = (rows: readonly PageViewCount[]) => {
    for (const row of rows) {
      const key = `${row.page}:${row.classCode}`;
      const known = counts.get(key);
      if (known) known.hits += Number(row.hits);
      else counts.set(key, { page: Number(row.page), classCode: Number(row.classCode), hits: Number(row.hits) });
    }
  };
  if (plan.fromDay < plan.toDay) add(await store.select<PageViewCount>(WHOLE_DAY_VIEWS, [site, plan.fromDay, plan.toDay]));
  if (plan.edges.length > 0) add(await store.select<PageViewCount>(EDGE_VIEWS, [site, ...windowParameters(plan.edges)]));
  const unfolded = unfoldedPageViewsSql(store, site, plan);
  if (unfolded !== null) add(await store.select<PageViewCount>(unfolded.sql, unfolded.parameters));
  return [...counts.values()];
}
