-- Views (hits) per site, day, page and class, for GET /v1/analytics/{projectId}/views,
-- as exact unique counts of (event_id, nonce) like analytics_hit_days: an event stored
-- twice by two processes racing on its id counts once. Only the classes /views counts
-- (1 human, 2 ai). Idempotent like 001.
CREATE TABLE IF NOT EXISTS {{local:analytics_page_view_days}}{{on_cluster}} (
  site UInt32,
  day UInt32,
  page Int32,
  class UInt8,
  hits AggregateFunction(uniqExact, String, UInt64)
) ENGINE = {{engine:AggregatingMergeTree:analytics_page_view_days}}
ORDER BY (site, day, page, class);

{{distributed:analytics_page_view_days}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{local:analytics_page_view_days_mv}}{{on_cluster}} TO {{local:analytics_page_view_days}} AS
SELECT site, day, page, class, uniqExactState(event_id, nonce) AS hits
FROM {{local:analytics_hits}} WHERE class <= 2
GROUP BY site, day, page, class;

-- The hits stored before this migration. A hit inserted while it runs may be both in the
-- view's rows and in these: the states count (event_id, nonce) pairs, so it counts once,
-- and a second runner repeating this adds nothing either. Read and written through the
-- query tables, so on a cluster every shard's hits are backfilled (both tables shard by
-- site, so each state lands beside its hits); on one server they are the tables above.
INSERT INTO {{table:analytics_page_view_days}}
SELECT site, day, page, class, uniqExactState(event_id, nonce) AS hits
FROM {{table:analytics_hits}} WHERE class <= 2
GROUP BY site, day, page, class;
