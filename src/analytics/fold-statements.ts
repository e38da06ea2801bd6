import type { Dialect } from '../db/database.js';
import { DAY_MS } from './analytics-codes.js';

/**
 * The fold: turns a set of raw hits into rollup changes. Both dialects run the same
 * statements; only the set, the temporary tables and GREATEST differ. On SQLite the set
 * is seq in (from, to]: its single writer hands out sequence numbers in commit order. On
 * PostgreSQL it is the hits of the ingest batches the fold has claimed (migration 004).
 *
 * For each (dimension, visitor, day) with a group bit that day did not have yet (a new
 * "point"), the previous and next visit days of the same group are found among the stored
 * visit days and among the other new points. The point adds one visitor at (day, prev);
 * when an existing later visit day's previous day changes because of it, that day's old
 * cell loses one and its new cell gains one. Everything is summed per cell before it
 * touches analytics_visitor_counts, so a fold writes few rows however many hits it has.
 *
 * Only the statements marked so take parameters: (from, to) on SQLite, and on
 * PostgreSQL `loadHits` takes (lowest, highest, ids) of the claimed batches.
 */
export interface FoldStatements {
  setup: string[];
  /**
   * PostgreSQL only: copies the claimed batches' hits into a temporary table, which the
   * later statements read instead of the hit table. Takes (lowest, highest, ids): the
   * bounds let the block-range index skip the table, the array is exact (batches
   * between the bounds may be unclaimed or folded already) and is a filter, not an
   * index condition (see PENDING_HITS in postgres-report-snapshot.ts).
   */
  loadHits: string | null;
  /** Each takes (from, to) on SQLite, nothing on PostgreSQL. */
  collectKeys: string[];
  describeKeys: string;
  /** The common case, without window functions: the only new visit day of its visitor and dimension, none later. */
  countLoneVisitors: string;
  countVisitors: string;
  storeVisitDays: string;
  /** Takes (from, to) on SQLite, nothing on PostgreSQL. */
  countHits: string;
  /** Human and ai hits per page and day (the views report); takes (from, to) on SQLite, nothing on PostgreSQL. */
  countPageViews: string;
  raiseMaxDays: string;
}

const DAY = `at / ${DAY_MS}`;
const HUMAN_OR_AI_MASK = 'max(case when class = 1 then 1 else 0 end) + max(case when class = 2 then 2 else 0 end)';
const SAME_PAIR = 'v.site = k.site and v.dim = k.dim and v.visitor = k.visitor';
/** The stored visit day of group g.grp before key k: usually the nearest one, probed already. */
const PREVIOUS_DAY = `case
  when k.earlier is null then -1
  when (k.earlier & g.grp) != 0 then k.earlier >> 3
  else coalesce((select max(v.day) from analytics_visit_days v where ${SAME_PAIR} and v.day < k.day and (v.mask & g.grp) != 0), -1)
end`;

export function foldStatements(dialect: Dialect): FoldStatements {
  const greatest = dialect === 'postgres' ? 'greatest' : 'max';
  // The hits of this fold: a seq range of the hit table on SQLite, the loaded copy on PostgreSQL.
  const hits = dialect === 'postgres' ? 'analytics_fold_hits where true' : 'analytics_hits where seq > ? and seq <= ?';
  const temporary =
    dialect === 'postgres'
      ? (name: string, columns: string) => [`create temporary table ${name} (${columns}) on commit drop`]
      : (name: string, columns: string) => [`create temporary table if not exists ${name} (${columns})`, `delete from temp.${name}`];
  return {
    setup: [
      ...(dialect === 'postgres'
        ? temporary('analytics_fold_hits', 'site integer, at bigint, page integer, visitor bigint, class smallint, agent integer')
        : []),
      ...temporary('analytics_fold_keys', 'site integer, dim integer, visitor bigint, day integer, mask integer, primary key (site, dim, visitor, day)'),
      ...temporary(
        'analytics_fold_info',
        'site integer, dim integer, visitor bigint, day integer, mask integer, same_mask integer, earlier integer, later integer, lone integer',
      ),
    ],
    loadHits:
      dialect === 'postgres'
        ? `insert into analytics_fold_hits (site, at, page, visitor, class, agent)
           select site, at, page, visitor, class, agent from analytics_hits where batch between ? and ? and +batch = any(?::bigint[])`
        : null,
    collectKeys: [
      `insert into analytics_fold_keys (site, dim, visitor, day, mask)
       select site, page, visitor, ${DAY}, ${HUMAN_OR_AI_MASK} from ${hits} and class <= 2 group by site, page, visitor, ${DAY}`,
      `insert into analytics_fold_keys (site, dim, visitor, day, mask)
       select site, 0, visitor, ${DAY}, ${HUMAN_OR_AI_MASK} from ${hits} and class <= 2 group by site, visitor, ${DAY}`,
      // Human and ai visitors per class are the site's groups 1 and 2: only crawlers need their own.
      `insert into analytics_fold_keys (site, dim, visitor, day, mask)
       select site, -class, visitor, ${DAY}, 4 from ${hits} and class >= 3 group by site, class, visitor, ${DAY}`,
      `insert into analytics_fold_keys (site, dim, visitor, day, mask)
       select site, agent, visitor, ${DAY}, 4 from ${hits} and agent is not null group by site, agent, visitor, ${DAY}`,
    ],
    // Visit days are encoded day * 8 + mask so one index probe returns both. The probe for
    // a later visit day is skipped when the key is on or after the site's latest day: the
    // common, in-order case costs one probe per key.
    describeKeys: `
      with probed as materialized (
        select k.site, k.dim, k.visitor, k.day, k.mask,
          (select v.day * 8 + v.mask from analytics_visit_days v where ${SAME_PAIR} and v.day <= k.day order by v.day desc limit 1) as at_or_before,
          case when k.day < s.max_day then
            (select v.day * 8 + v.mask from analytics_visit_days v where ${SAME_PAIR} and v.day > k.day order by v.day limit 1)
          end as later
        from analytics_fold_keys k join analytics_sites s on s.site = k.site
      ),
      split as materialized (
        select site, dim, visitor, day, mask, later, at_or_before,
          case when at_or_before >> 3 = day then at_or_before & 7 else 0 end as same_mask
        from probed
      )
      insert into analytics_fold_info (site, dim, visitor, day, mask, same_mask, earlier, later, lone)
      select k.site, k.dim, k.visitor, k.day, k.mask, k.same_mask,
        case when k.at_or_before >> 3 = k.day then
          (select v.day * 8 + v.mask from analytics_visit_days v where ${SAME_PAIR} and v.day < k.day order by v.day desc limit 1)
        else k.at_or_before end,
        k.later,
        case when exists (select 1 from analytics_fold_keys o where o.site = k.site and o.dim = k.dim and o.visitor = k.visitor and o.day != k.day) then 0 else 1 end
      from split k
      where (k.mask & ~k.same_mask) != 0`,
    countLoneVisitors: `
      with grps (grp) as (values (1), (2), (3), (4))
      insert into analytics_visitor_counts (site, grp, dim, day, prev, visitors)
      select k.site, g.grp, k.dim, k.day, ${PREVIOUS_DAY}, count(*)
      from analytics_fold_info k join grps g on (k.mask & g.grp) != 0 and (k.same_mask & g.grp) = 0
      where k.lone = 1 and k.later is null
      group by k.site, g.grp, k.dim, k.day, ${PREVIOUS_DAY}
      on conflict (site, grp, dim, day, prev) do update set visitors = analytics_visitor_counts.visitors + excluded.visitors`,
    countVisitors: `
      with grps (grp) as (values (1), (2), (3), (4)),
      points as materialized (
        select k.site, k.dim, k.visitor, k.day, g.grp,
          ${PREVIOUS_DAY} as prev_old,
          case
            when k.later is null then null
            when (k.later & g.grp) != 0 then k.later >> 3
            else (select min(v.day) from analytics_visit_days v where ${SAME_PAIR} and v.day > k.day and (v.mask & g.grp) != 0)
          end as next_old
        from analytics_fold_info k join grps g on (k.mask & g.grp) != 0 and (k.same_mask & g.grp) = 0
        where not (k.lone = 1 and k.later is null)
      ),
      ordered as materialized (
        select site, dim, grp, day, prev_old, next_old,
          lag(day) over w as prev_new,
          lead(day) over w as next_new
        from points
        window w as (partition by site, dim, visitor, grp order by day)
      ),
      deltas (site, dim, grp, day, prev, n) as (
        select site, dim, grp, day, ${greatest}(prev_old, coalesce(prev_new, -1)), 1 from ordered
        union all
        select site, dim, grp, next_old, prev_old, -1 from ordered
        where next_old is not null and (next_new is null or next_new > next_old)
        union all
        select site, dim, grp, next_old, day, 1 from ordered
        where next_old is not null and (next_new is null or next_new > next_old)
      )
      insert into analytics_visitor_counts (site, grp, dim, day, prev, visitors)
      select site, grp, dim, day, prev, sum(n) from deltas where true
      group by site, grp, dim, day, prev having sum(n) != 0
      on conflict (site, grp, dim, day, prev) do update set visitors = analytics_visitor_counts.visitors + excluded.visitors`,
    storeVisitDays: `
      insert into analytics_visit_days (site, dim, visitor, day, mask)
      select site, dim, visitor, day, mask from analytics_fold_info where true
      on conflict (site, dim, visitor, day) do update set mask = analytics_visit_days.mask | excluded.mask`,
    countHits: `
      insert into analytics_hit_counts (site, day, class, agent, hits)
      select site, ${DAY}, class, coalesce(agent, 0), count(*) from ${hits} group by site, ${DAY}, class, coalesce(agent, 0)
      on conflict (site, day, class, agent) do update set hits = analytics_hit_counts.hits + excluded.hits`,
    countPageViews: `
      insert into analytics_page_view_counts (site, day, page, class, hits)
      select site, ${DAY}, page, class, count(*) from ${hits} and class <= 2 group by site, ${DAY}, page, class
      on conflict (site, day, page, class) do update set hits = analytics_page_view_counts.hits + excluded.hits`,
    raiseMaxDays: `
      update analytics_sites set max_day = ${greatest}(analytics_sites.max_day, m.day)
      from (select site, max(day) as day from analytics_fold_keys group by site) m
      where analytics_sites.site = m.site`,
  };
}
