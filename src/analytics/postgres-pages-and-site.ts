import type { AnalyticsReader } from './analytics-store.js';
import { SITE_DIMENSION } from './analytics-codes.js';
import { GROUP_COUNTS, HUMAN_OR_AI_MASK, type GroupCountsRow, type RawHits } from './raw-hit-queries.js';

/**
 * How the raw half of a PostgreSQL visitors report leaves out visitors the rollups
 * already count: `none` (no hit in the whole days is folded), `probe` (one index probe
 * of analytics_visit_days per (page, visitor) and visitor found in the raw hits) or
 * `merge` (the folded visit days of the range go into the same sort as the raw hits).
 */
export type FoldedCheck = 'none' | 'probe' | 'merge';

/** Hits of the site folded into the whole days (hit counts are written by the same fold as visit days, and never pruned). */
const FOLDED_HITS_IN_WHOLE_DAYS = 'select coalesce(sum(hits), 0)::text as hits from analytics_hit_counts where site = ? and day >= ? and day < ?';

/**
 * Probes cost an index descent per group: after a bulk load into a site that a fold has
 * barely touched, that is 8M descents for 10M hits (30 s of the 38 s the statement took
 * on the 2-core bench machine, docs/benchmarks.md), when the few visit days folded so far
 * could simply be sorted with the hits (10 s). The planner cannot see this itself: the
 * unfolded hits are filtered by expressions it has no statistics for, so it always takes
 * them for a few rows. So the choice is made here, from counts the snapshot has anyway:
 * merge while the folded hits of the range are no more than the unfolded hits (of every
 * site: pending batches do not record theirs), so the merge sorts at most about three
 * times the rows the report reads anyway; probe otherwise (a mostly folded range).
 */
export async function foldedCheck(reader: AnalyticsReader, whole: readonly [number, number, number]): Promise<FoldedCheck> {
  const [row] = await reader.select<{ hits: string }>(FOLDED_HITS_IN_WHOLE_DAYS, whole);
  const folded = Number(row?.hits ?? 0);
  if (folded === 0) return 'none';
  const unfolded = reader.unfolded?.hits;
  return unfolded !== undefined && folded <= unfolded ? 'merge' : 'probe';
}

/** Per (page, visitor) and visitor: which groups the raw hits show (mask) and the folded visit days hold (folded). */
function groupedSql(raw: RawHits, check: FoldedCheck): string {
  const groupingSets = 'group by grouping sets ((h.visitor, h.page), (h.visitor))';
  const dim = `case when grouping(h.page) = 0 then h.page else ${SITE_DIMENSION} end`;
  if (check === 'merge') {
    // A visit day of the site (dim 0) has no page: it joins the (visitor) set only, and
    // its (visitor, null) group has no raw hit, so `having` drops it. Pages and the site
    // only (mask bits 1 and 2): crawler-class and agent visit days have bit 4 alone.
    return `select ${dim} as dim, bit_or(h.seen) as mask,
        case when grouping(h.page) = 0 then bit_or(h.folded_page) else bit_or(h.folded_site) end as folded
      from (
        select v.visitor, nullif(v.dim, ${SITE_DIMENSION}) as page, 0 as seen,
          case when v.dim <> ${SITE_DIMENSION} then v.mask else 0 end as folded_page, case when v.dim = ${SITE_DIMENSION} then v.mask else 0 end as folded_site
        from analytics_visit_days v where v.site = ? and v.day >= ? and v.day < ? and v.dim >= 0 and (v.mask & 3) <> 0
        union all
        select r.visitor, r.page, case when r.class = 1 then 1 when r.class = 2 then 2 else 0 end, 0, 0 from (${raw.sql}) r where r.class <= 2
      ) h ${groupingSets} having bit_or(h.seen) <> 0`;
  }
  const grouped = `select ${dim} as dim, h.visitor, ${HUMAN_OR_AI_MASK} as mask from (${raw.sql}) h where h.class <= 2 ${groupingSets}`;
  if (check === 'none') return `select dim, mask, 0 as folded from (${grouped}) grouped`;
  // `offset 0` keeps the subquery from being pulled up: pulled up, the probe is copied into
  // each of the four sums that read `folded` and runs once per sum (measured: 30.5 s
  // against 23.1 s with one probe per group, 10M hits).
  return `select dim, mask, coalesce((select max(v.mask & 1) + max(v.mask & 2) + max(v.mask & 4) from analytics_visit_days v
      where v.site = ? and v.dim = grouped.dim and v.visitor = grouped.visitor and v.day >= ? and v.day < ?), 0) as folded
    from (${grouped} offset 0) grouped`;
}

/**
 * PostgreSQL, visitors family: PAGES and SITE from one sort of the raw hits. Sorted by
 * (visitor, page), one pass yields the (page, visitor) groups and the (visitor) groups
 * (grouping sets), so the hits are read and sorted once instead of twice (a report's
 * queries share one connection there, so two statements ran one after the other). Same
 * rows as rawVisitorsSql for PAGES and SITE together: the site is dimension 0, and page
 * dimensions are dictionary ids, never 0. With `probe` or `merge`, takes (site, fromDay,
 * toDay, ...raw parameters); with `none`, only the raw parameters.
 */
export function rawPagesAndSiteSql(raw: RawHits, check: FoldedCheck): string {
  return `select dim, ${GROUP_COUNTS} from (${groupedSql(raw, check)}) counted group by dim`;
}

/** The raw half of a PostgreSQL visitors report, every group of pages and the site. */
export async function rawPagesAndSite(
  reader: AnalyticsReader,
  raw: RawHits,
  whole: readonly [number, number, number],
  wholeDays: boolean,
): Promise<GroupCountsRow[]> {
  const check = wholeDays ? await foldedCheck(reader, whole) : 'none';
  const sql = rawPagesAndSiteSql(raw, check);
  const parameters = check === 'none' ? raw.parameters : [...whole, ...raw.parameters];
  if (check !== 'merge') return reader.select<GroupCountsRow>(sql, parameters);
  // The union's row estimate is as blind as the raw hits' (above): left to itself the
  // planner hashes the groups, which spills to disk at this size (17.1 s against 10.4 s
  // for the sort, 10M hits). Scoped to this statement; the transaction ends with the report.
  // (No finally: a failed statement aborts the transaction, and the report with it.)
  await reader.select('set local enable_hashagg = off', []);
  const rows = await reader.select<GroupCountsRow>(sql, parameters);
  await reader.select('set local enable_hashagg to default', []);
  return rows;
}
