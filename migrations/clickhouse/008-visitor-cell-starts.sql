-- A build's start, written before its first cell: a build that died before recording itself
-- (its process killed mid-build) left cells that no report reads, and they are told from a
-- build still running in another process by their start's age. The next build of the site
-- deletes the cells of unrecorded builds started more than two hours before its mark (a
-- build's statement stops on the server after one hour: clickhouse-cell-builds.ts). Builds
-- that died before this migration have no start and keep their cells until the project's
-- data is deleted. Idempotent like 001.
CREATE TABLE IF NOT EXISTS {{local:analytics_visitor_cell_starts}}{{on_cluster}} (
  site UInt32,
  build UInt64,
  started Int64
) ENGINE = {{engine:MergeTree:analytics_visitor_cell_starts}}
ORDER BY (site, build);

{{distributed:analytics_visitor_cell_starts}};
