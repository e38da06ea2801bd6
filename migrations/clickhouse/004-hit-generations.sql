-- Reclassification on ClickHouse (docs/classification.md, "Reclassification"). Hits and
-- their rollups carry the generation they were classified in (`gen`, 0 = as ingested);
-- analytics_generations records, per site, which generation answers from which day on.
-- A reclassification writes the site's hits again under a new generation and then
-- switches to it with one insert, so every query reads exactly one generation of each
-- (site, day): never half a rewrite, never a hit twice. Idempotent like 001.
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN gen UInt32 DEFAULT 0;
{{redistribute:analytics_hits}};

-- One row per event of a generation: state 1 = claimed (being written; writers also
-- write their hits into it, and a claim older than the staleness limit is taken over),
-- 2 = switched (it answers for the site's days from from_day on), 3 = abandoned.
-- `version` is the analytics_classifier_versions id it brings hits to; `owner` the run.
CREATE TABLE IF NOT EXISTS {{local:analytics_generations}}{{on_cluster}} (
  site UInt32,
  gen UInt32,
  from_day UInt32,
  state UInt8,
  version Int32,
  owner String,
  at Int64
) ENGINE = {{engine:MergeTree:analytics_generations}}
ORDER BY (site, gen, at);

{{distributed:analytics_generations}};

-- The rollups of 001 and 003 again, with the generation in their key (an aggregating
-- table merges rows of equal key, so the generation cannot be a column beside it). The
-- views come first, then the old states are copied under generation 0: a hit inserted
-- meanwhile is in both, and uniqExact states count it once.
CREATE TABLE IF NOT EXISTS {{local:analytics_visitor_gen_days}}{{on_cluster}} (
  site UInt32,
  day UInt32,
  gen UInt32,
  dim Int32,
  grp UInt8,
  visitors AggregateFunction(uniqExact, Int64)
) ENGINE = {{engine:AggregatingMergeTree:analytics_visitor_gen_days}}
ORDER BY (site, day, gen, grp, dim);

{{distributed:analytics_visitor_gen_days}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{local:analytics_visitor_gen_days_mv}}{{on_cluster}} TO {{local:analytics_visitor_gen_days}} AS
SELECT site, day, gen, toInt32(tupleElement(dg, 1)) AS dim, toUInt8(tupleElement(dg, 2)) AS grp, uniqExactState(visitor) AS visitors
FROM {{local:analytics_hits}}
ARRAY JOIN arrayFilter(x -> tupleElement(x, 3) = 1, [
  (toInt32(page), toUInt8(class), class <= 2), (toInt32(0), toUInt8(class), class <= 2),
  (-toInt32(class), toUInt8(4), class >= 3), (toInt32(agent), toUInt8(4), agent != 0)
]) AS dg
GROUP BY site, day, gen, dim, grp;

CREATE TABLE IF NOT EXISTS {{local:analytics_hit_gen_days}}{{on_cluster}} (
  site UInt32,
  day UInt32,
  gen UInt32,
  class UInt8,
  agent Int32,
  hits AggregateFunction(uniqExact, String, UInt64)
) ENGINE = {{engine:AggregatingMergeTree:analytics_hit_gen_days}}
ORDER BY (site, day, gen, class, agent);

{{distributed:analytics_hit_gen_days}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{local:analytics_hit_gen_days_mv}}{{on_cluster}} TO {{local:analytics_hit_gen_days}} AS
SELECT site, day, gen, class, agent, uniqExactState(event_id, nonce) AS hits
FROM {{local:analytics_hits}}
GROUP BY site, day, gen, class, agent;

CREATE TABLE IF NOT EXISTS {{local:analytics_page_view_gen_days}}{{on_cluster}} (
  site UInt32,
  day UInt32,
  gen UInt32,
  page Int32,
  class UInt8,
  hits AggregateFunction(uniqExact, String, UInt64)
) ENGINE = {{engine:AggregatingMergeTree:analytics_page_view_gen_days}}
ORDER BY (site, day, gen, page, class);

{{distributed:analytics_page_view_gen_days}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{local:analytics_page_view_gen_days_mv}}{{on_cluster}} TO {{local:analytics_page_view_gen_days}} AS
SELECT site, day, gen, page, class, uniqExactState(event_id, nonce) AS hits
FROM {{local:analytics_hits}} WHERE class <= 2
GROUP BY site, day, gen, page, class;

-- The old states, whole history (the raw hits of pruned days are gone), as generation 0.
-- Run by several processes at once they add nothing: states are unions.
INSERT INTO {{table:analytics_visitor_gen_days}} SELECT site, day, toUInt32(0) AS gen, dim, grp, visitors FROM {{table:analytics_visitor_days}};
INSERT INTO {{table:analytics_hit_gen_days}} SELECT site, day, toUInt32(0) AS gen, class, agent, hits FROM {{table:analytics_hit_days}};
INSERT INTO {{table:analytics_page_view_gen_days}} SELECT site, day, toUInt32(0) AS gen, page, class, hits FROM {{table:analytics_page_view_days}};

-- The old views stop, so ingest pays for three rollups, not six. The old tables stay
-- (a process of the previous release still reads them until it is replaced); a later
-- migration drops them.
DROP TABLE IF EXISTS {{local:analytics_visitor_days_mv}}{{on_cluster}};
DROP TABLE IF EXISTS {{local:analytics_hit_days_mv}}{{on_cluster}};
DROP TABLE IF EXISTS {{local:analytics_page_view_days_mv}}{{on_cluster}};
