import type { AnalyticsReader } from './analytics-store.js';
import type { RangePlan } from './range-plan.js';
import { IN_WINDOWS, unfoldedPageViewsSql, windowParameters } from './raw-hit-queries.js';
import { sumHitParts } from './rollup-queries.js';

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
export function countPageViews(store: AnalyticsReader, site: number, plan: RangePlan): Promise<PageViewCount[]> {
  return sumHitParts(
    store,
    [
      plan.fromDay < plan.toDay ? { sql: WHOLE_DAY_VIEWS, parameters: [site, plan.fromDay, plan.toDay] } : null,
      plan.edges.length > 0 ? { sql: EDGE_VIEWS, parameters: [site, ...windowParameters(plan.edges)] } : null,
      unfoldedPageViewsSql(store, site, plan),
    ],
    (row) => ({ page: Number(row.page), classCode: Number(row.classCode), hits: Number(row.hits) }),
    (row) => `${row.page}:${row.classCode}`,
  );
}
