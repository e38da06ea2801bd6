import type { AnalyticsReader } from './analytics-store.js';
import { CLASS_CODES } from './analytics-codes.js';
import type { ViewsResult, VisitorCounts } from './analytics-types.js';
import type { DimensionNames } from './dimension-names.js';
import type { RangePlan } from './range-plan.js';
import { pageViewCounts } from './range-counts.js';
import { rankedPages, type PageWindow } from './visitors-report.js';

/**
 * Totals and one page of per-page views, the companion of the visitors report: the same
 * shape and order, with hits instead of unique visitors. A view is a stored hit of class
 * human or ai (the visitors endpoint's two classes), so `total` = `human` + `ai`, and the
 * site's totals are the sums over its pages. Crawler hits are not views (see /traffic).
 */
export async function viewsReport(store: AnalyticsReader, names: DimensionNames, site: number | null, plan: RangePlan, page: PageWindow): Promise<ViewsResult> {
  const totals: VisitorCounts = { human: 0, ai: 0, total: 0 };
  if (site === null) return { totals, views: [], hasMore: false };
  const perPage = new Map<number, VisitorCounts>();
  for (const row of await pageViewCounts(store, site, plan)) {
    const side = row.classCode === CLASS_CODES.human ? 'human' : row.classCode === CLASS_CODES.ai ? 'ai' : null;
    if (side === null || row.hits === 0) continue;
    let counts = perPage.get(row.page);
    if (counts === undefined) {
      counts = { human: 0, ai: 0, total: 0 };
      perPage.set(row.page, counts);
    }
    counts[side] += row.hits;
    counts.total += row.hits;
    totals[side] += row.hits;
    totals.total += row.hits;
  }
  const { rows, hasMore } = await rankedPages(names, site, perPage, page);
  return { totals, views: rows, hasMore };
}
