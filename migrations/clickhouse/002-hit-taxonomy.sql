-- The finer taxonomy of issue 14 (docs/classification.md), as in migration 013 of the SQL
-- backends: category (0 = stored before this migration), verification, read_kind, and the
-- nullable status and referral (an analytics_dimensions id of kind REFERRAL_KIND). Codes
-- in src/analytics/analytics-codes.ts. The materialized views name their columns, so they
-- are unchanged; `class` keeps driving the visitors rollups.
--
-- ClickHouse 18.16 has no ADD COLUMN IF NOT EXISTS: each column is its own statement, and
-- a process that loses the race to add it gets "column with this name already exists",
-- which the migrator takes as done (clickhouse-migrations.ts, ALREADY_EXISTS). On a
-- cluster the Distributed table is then created again over the altered local table, so it
-- has the columns too (on one server the two names are the same table: nothing to do).
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN category UInt8 DEFAULT 0;
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN verification UInt8 DEFAULT 0;
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN read_kind UInt8 DEFAULT 0;
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN status Nullable(UInt16);
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN referral Nullable(Int32);
{{redistribute:analytics_hits}};
