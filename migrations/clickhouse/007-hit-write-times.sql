-- When each raw hit was written: the writing process's clock (ms) when its spool drain took
-- it, set by the drain (0 for hits written before this migration, and for the copies a
-- reclassification makes). A visitor-cell build reads only the hits written before its mark,
-- which are all in ClickHouse by then, so the hits a report finds written at or after the
-- mark are exactly those the build does not hold: a live site's range is answered from the
-- cells plus those few hits (docs/analytics.md, "ClickHouse"). One statement per column, as in 002.
-- Processes of an older release write 0 here: stop those that ingest across this migration
-- (docs/operations.md, "Upgrades and migrations"), or a report may miss their hits until the next build.
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN written Int64 DEFAULT 0;
{{redistribute:analytics_hits}};

-- 1: the build read only the hits written before its mark (above); 0: a build from before
-- this migration, which may hold some written after it, and is never combined with them.
ALTER TABLE {{local:analytics_visitor_cell_builds}}{{on_cluster}} ADD COLUMN exact UInt8 DEFAULT 0;
{{redistribute:analytics_visitor_cell_builds}};
