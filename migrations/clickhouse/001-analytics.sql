-- ClickHouse analytics tables (DOCWRIGHT_ANALYTICS_URL). Every statement is idempotent
-- (IF NOT EXISTS), so processes starting together may all run it. Placeholders, expanded
-- by src/analytics/clickhouse/clickhouse-migrations.ts:
--   {{local:NAME}}     the table that holds the rows (NAME, or NAME_local on a cluster)
--   {{table:NAME}}     the table queries read (NAME; a Distributed table on a cluster)
--   {{on_cluster}}     ON CLUSTER `name` on a cluster, else nothing
--   {{engine:KIND:NAME}} KIND, or ReplicatedKIND(zookeeper path, '{replica}') on a cluster
--   {{distributed:NAME}} the Distributed table over NAME_local on a cluster; skipped on one server
--   {{redistribute:NAME}} on a cluster, that Distributed table dropped and created again after
--                      NAME_local was altered (unless it already has its columns); skipped on one server
-- Written for ClickHouse 18.16 (no LowCardinality, no query parameters) and later.

-- Raw hits: what the SQL backends keep in analytics_hits. No IP address; strings are
-- dictionary ids from the primary database, except the referrer. event_id is '' when the
-- event had none; nonce is random then, and 0 when it had one, so (event_id, nonce) names
-- one hit however often it was stored.
CREATE TABLE IF NOT EXISTS {{local:analytics_hits}}{{on_cluster}} (
  site UInt32,
  at Int64,
  day UInt32,
  page Int32,
  visitor Int64,
  class UInt8,
  agent Int32,
  user_agent Int32,
  referrer Nullable(String),
  markdown_accept UInt8,
  classifier_version Int32,
  event_id String,
  nonce UInt64
) ENGINE = {{engine:MergeTree:analytics_hits}}
PARTITION BY intDiv(day, 30)
ORDER BY (site, day, at);

{{distributed:analytics_hits}};

-- Event ids by (site, id), for the duplicate check of POST /events; pruned with the hits.
CREATE TABLE IF NOT EXISTS {{local:analytics_event_ids}}{{on_cluster}} (
  site UInt32,
  event_id String,
  at Int64
) ENGINE = {{engine:ReplacingMergeTree:analytics_event_ids}}
ORDER BY (site, event_id);

{{distributed:analytics_event_ids}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{local:analytics_event_ids_mv}}{{on_cluster}} TO {{local:analytics_event_ids}} AS
SELECT site, event_id, at FROM {{local:analytics_hits}} WHERE event_id != '';

-- Unique visitors per site, day, dimension and group, as exact uniqExact states: whole
-- days of any range merge them (uniqExactMerge), with no approximation. Dimensions and
-- groups as in src/analytics/analytics-codes.ts: page or site (0) in groups human (1)
-- and ai (2); "either" (3) is the merge of both, so it is not stored; crawler class c as
-- dimension -c and agents in group any (4).
-- The same expression is in clickhouse-range-counter.ts (HIT_DIMENSIONS) for the parts of
-- days a range cuts off; the oracle property tests hold them to each other.
CREATE TABLE IF NOT EXISTS {{local:analytics_visitor_days}}{{on_cluster}} (
  site UInt32,
  day UInt32,
  dim Int32,
  grp UInt8,
  visitors AggregateFunction(uniqExact, Int64)
) ENGINE = {{engine:AggregatingMergeTree:analytics_visitor_days}}
ORDER BY (site, day, grp, dim);

{{distributed:analytics_visitor_days}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{local:analytics_visitor_days_mv}}{{on_cluster}} TO {{local:analytics_visitor_days}} AS
SELECT site, day, toInt32(tupleElement(dg, 1)) AS dim, toUInt8(tupleElement(dg, 2)) AS grp, uniqExactState(visitor) AS visitors
FROM {{local:analytics_hits}}
ARRAY JOIN arrayFilter(x -> tupleElement(x, 3) = 1, [
  (toInt32(page), toUInt8(class), class <= 2), (toInt32(0), toUInt8(class), class <= 2),
  (-toInt32(class), toUInt8(4), class >= 3), (toInt32(agent), toUInt8(4), agent != 0)
]) AS dg
GROUP BY site, day, dim, grp;

-- Hits per site, day, class and agent (0: none), as exact unique counts of (event_id,
-- nonce): an event stored twice by two processes racing on its id counts once.
CREATE TABLE IF NOT EXISTS {{local:analytics_hit_days}}{{on_cluster}} (
  site UInt32,
  day UInt32,
  class UInt8,
  agent Int32,
  hits AggregateFunction(uniqExact, String, UInt64)
) ENGINE = {{engine:AggregatingMergeTree:analytics_hit_days}}
ORDER BY (site, day, class, agent);

{{distributed:analytics_hit_days}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{local:analytics_hit_days_mv}}{{on_cluster}} TO {{local:analytics_hit_days}} AS
SELECT site, day, class, agent, uniqExactState(event_id, nonce) AS hits
FROM {{local:analytics_hits}}
GROUP BY site, day, class, agent;
