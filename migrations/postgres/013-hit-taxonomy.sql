-- The finer taxonomy of issue 14 (docs/classification.md), one column each on the raw hits.
-- The codes are in src/analytics/analytics-codes.ts (never renumbered, only appended).
--   category      CATEGORY_CODES; 0 = stored before this migration: the reclassification
--                 job gives such hits their category
--   verification  VERIFICATION_CODES (0 none, 1 claimed, 2 verified, 3 spoofed)
--   read_kind     READ_KIND_CODES (0 page, 1 markdown, 2 llms-txt, 3 llms-full-txt)
--   status        the HTTP status of the response when the sender or the log knew it
--   referral      analytics_dimensions id (kind REFERRAL_KIND) of the AI product a human
--                 arrived from
-- `class` stays and keeps driving the visitors rollups. A constant default is stored in
-- the catalogue (PostgreSQL 11 and later): no table rewrite, old rows read the default.
alter table analytics_hits
  add column category smallint not null default 0,
  add column verification smallint not null default 0,
  add column read_kind smallint not null default 0,
  add column status smallint,
  add column referral integer;
