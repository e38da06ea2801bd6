import type { AnalyticsStore } from './analytics-store.js';
import { AI_GROUP, EITHER_GROUP, HUMAN_GROUP, PAGE_KIND, SITE_DIMENSION } from './analytics-codes.js';
import type { PageVisitors, VisitorCounts, VisitorsResult } from './analytics-types.js';
import type { DimensionNames } from './dimension-names.js';
import type { RangePlan } from './range-plan.js';
import { countVisitors } from './rollup-queries.js';

/** Path order for ties: UTF-16 code units, the same in every locale and in both databases' clients. */
export function comparePages(a: PageVisitors, b: PageVisitors): number {
  if (a.total !== b.total) return b.total - a.total;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * Totals and one page of per-page counts. Every page with a visitor in range is ranked
 * (total descending, then path), so offsets walk a fixed order and hasMore is exact.
 */
export async function visitorsReport(
  store: AnalyticsStore,
  names: DimensionNames,
  site: number | null,
  plan: RangePlan,
  page: { limit: number; offset: number },
): Promise<VisitorsResult> {
  const totals: VisitorCounts = { human: 0, ai: 0, total: 0 };
  if (site === null) return { totals, visitors: [], hasMore: false };
  const perDimension = new Map<number, VisitorCounts>();
  for (const row of await countVisitors(store, site, plan, 'visitors')) {
    let counts = row.dim === SITE_DIMENSION ? totals : perDimension.get(row.dim);
    if (counts === undefined) {
      counts = { human: 0, ai: 0, total: 0 };
      perDimension.set(row.dim, counts);
    }
    if (row.grp === HUMAN_GROUP) counts.human += row.visitors;
    else if (row.grp === AI_GROUP) counts.ai += row.visitors;
    else if (row.grp === EITHER_GROUP) counts.total += row.visitors;
  }
  const known = await names.lookup(site, perDimension.keys());
  const pages: PageVisitors[] = [];
  for (const [dim, counts] of perDimension) {
    const name = known.get(dim);
    if (name === undefined || name.kind !== PAGE_KIND || counts.total === 0) continue;
    pages.push({ path: name.name, human: counts.human, ai: counts.ai, total: counts.total });
  }
  pages.sort(comparePages);
  return { totals, visitors: pages.slice(page.offset, page.offset + page.limit), hasMore: pages.length > page.offset + page.limit };
}
