import type { AnalyticsReader } from './analytics-store.js';
import { AI_GROUP, EITHER_GROUP, HUMAN_GROUP, PAGE_KIND, SITE_DIMENSION } from './analytics-codes.js';
import type { PageVisitors, SortOrder, VisitorCounts, VisitorsResult, VisitorsSort } from './analytics-types.js';
import type { DimensionNames } from './dimension-names.js';
import type { RangePlan } from './range-plan.js';
import { visitorCounts } from './range-counts.js';

/** Path order: UTF-16 code units, the same in every locale and in both databases' clients. */
const comparePaths = (a: PageVisitors, b: PageVisitors): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** The spec's order and the default: total descending, then path ascending. */
export function comparePages(a: PageVisitors, b: PageVisitors): number {
  if (a.total !== b.total) return b.total - a.total;
  return comparePaths(a, b);
}

export interface PageOrder {
  sort: VisitorsSort;
  order: SortOrder;
}

/** Counts rank descending unless asked otherwise; a path list reads best A to Z. */
export function defaultOrder(sort: VisitorsSort): SortOrder {
  return sort === 'path' ? 'asc' : 'desc';
}

/**
 * A total order for any sort: the count in the direction asked, then path ascending
 * (paths are unique), so offsets walk a fixed sequence whatever the direction.
 */
export function pageComparator({ sort, order }: PageOrder): (a: PageVisitors, b: PageVisitors) => number {
  if (sort === 'total' && order === 'desc') return comparePages;
  if (sort === 'path') return order === 'asc' ? comparePaths : (a, b) => comparePaths(b, a);
  const sign = order === 'desc' ? -1 : 1;
  return (a, b) => (a[sort] !== b[sort] ? sign * (a[sort] - b[sort]) : comparePaths(a, b));
}

/**
 * Totals and one page of per-page counts. Every page with a visitor in range is ranked
 * (by default total descending, then path), so offsets walk a fixed order and hasMore is
 * exact. The ranking runs over the per-page counts the rollup query returns anyway (one
 * row per page and group), so another order costs nothing extra in the database.
 */
export async function visitorsReport(
  store: AnalyticsReader,
  names: DimensionNames,
  site: number | null,
  plan: RangePlan,
  page: PageWindow,
): Promise<VisitorsResult> {
  const totals: VisitorCounts = { human: 0, ai: 0, total: 0 };
  if (site === null) return { totals, visitors: [], hasMore: false };
  const perDimension = new Map<number, VisitorCounts>();
  for (const row of await visitorCounts(store, site, plan, 'visitors')) {
    let counts = row.dim === SITE_DIMENSION ? totals : perDimension.get(row.dim);
    if (counts === undefined) {
      counts = { human: 0, ai: 0, total: 0 };
      perDimension.set(row.dim, counts);
    }
    if (row.grp === HUMAN_GROUP) counts.human += row.visitors;
    else if (row.grp === AI_GROUP) counts.ai += row.visitors;
    else if (row.grp === EITHER_GROUP) counts.total += row.visitors;
  }
  const { rows, hasMore } = await rankedPages(names, site, perDimension, page);
  return { totals, visitors: rows, hasMore };
}

export interface PageWindow {
  limit: number;
  offset: number;
  sort?: VisitorsSort | undefined;
  order?: SortOrder | undefined;
}

/**
 * The shared tail of the per-page lists (/visitors, /views): names the page dimensions,
 * drops other dimensions and pages with nothing counted, ranks every page in the asked
 * order (a total order, so offsets never overlap or skip) and cuts the asked window.
 */
export async function rankedPages(
  names: DimensionNames,
  site: number,
  perDimension: ReadonlyMap<number, VisitorCounts>,
  page: PageWindow,
): Promise<{ rows: PageVisitors[]; hasMore: boolean }> {
  const known = await names.lookup(site, perDimension.keys());
  const pages: PageVisitors[] = [];
  for (const [dim, counts] of perDimension) {
    const name = known.get(dim);
    if (name?.kind !== PAGE_KIND || counts.total === 0) continue;
    pages.push({ path: name.name, human: counts.human, ai: counts.ai, total: counts.total });
  }
  const sort = page.sort ?? 'total';
  pages.sort(pageComparator({ sort, order: page.order ?? defaultOrder(sort) }));
  return { rows: pages.slice(page.offset, page.offset + page.limit), hasMore: pages.length > page.offset + page.limit };
}
