-- What re-verification needs when the published ranges change (docs/classification.md,
-- "Re-verification when the ranges change"), as in the SQL migrations' 018: the block
-- around a non-human hit's address that no range list cut at ingest (never the address),
-- and what decided its verification (EVIDENCE_CODES). One statement per column, as in 002.
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN address_block Nullable(String);
ALTER TABLE {{local:analytics_hits}}{{on_cluster}} ADD COLUMN evidence UInt8 DEFAULT 0;
{{redistribute:analytics_hits}};
