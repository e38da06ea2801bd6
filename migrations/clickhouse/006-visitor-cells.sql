-- Visitor cells: the visitors report's counts over whole days, precomputed the way the SQL
-- backends keep them (docs/analytics.md, "Why counts are exact"): per (generation, group,
-- dimension, visit day, previous visit day) how many visitors; unique visitors of whole
-- days [F, T) are the sum over F <= day < T and prev < F. Built per site from the raw hits
-- when ingest is quiet (clickhouse-cell-builds.ts); a report reads them only when no hit of
-- its range was written after the build's mark, and otherwise the uniqExact states as before.
-- Idempotent like 001.
--
-- When each day of a site last got hits: `written` is the writing process's clock (ms) just
-- before a spool drain's insert, one row per (site, day) it holds, written before the hits.
-- Kept when raw hits are pruned; a report asks it whether a hit of its range may have been
-- written after a build's mark. Merges keep the latest (maxState).
CREATE TABLE IF NOT EXISTS {{local:analytics_hit_day_writes}}{{on_cluster}} (
  site UInt32,
  day UInt32,
  written AggregateFunction(max, Int64)
) ENGINE = {{engine:AggregatingMergeTree:analytics_hit_day_writes}}
ORDER BY (site, day);

{{distributed:analytics_hit_day_writes}};

-- One build's cells: rows of the visitors family (pages and the site, 0; groups 1 human, 2
-- ai, 3 either) of every generation of the site, as its raw hits from `from_day` on were
-- when the build read them. `prev` is -1 for a first visit.
CREATE TABLE IF NOT EXISTS {{local:analytics_visitor_cells}}{{on_cluster}} (
  site UInt32,
  build UInt64,
  gen UInt32,
  grp UInt8,
  dim Int32,
  day UInt32,
  prev Int64,
  visitors UInt32
) ENGINE = {{engine:MergeTree:analytics_visitor_cells}}
ORDER BY (site, build, grp, dim, day, prev);

{{distributed:analytics_visitor_cells}};

-- A finished build: its cells are complete. `mark` (ms): every hit whose day was stamped in
-- analytics_hit_day_writes before it is in them; `from_day`: the first day they cover (the
-- raw hits' horizon when it was built); `switched`: the site's latest generation switch
-- then (a later switch makes it stale).
CREATE TABLE IF NOT EXISTS {{local:analytics_visitor_cell_builds}}{{on_cluster}} (
  site UInt32,
  build UInt64,
  mark Int64,
  from_day UInt32,
  switched Int64,
  at Int64
) ENGINE = {{engine:MergeTree:analytics_visitor_cell_builds}}
ORDER BY (site, mark, build);

{{distributed:analytics_visitor_cell_builds}};
