-- What re-verification needs when the published ranges change (docs/classification.md,
-- "Re-verification when the ranges change"), for non-human hits only, never a raw address:
-- `address_block` is the aligned block around the client address that no range list cut
-- at ingest (at least /24 or /48 wide, at most /28 or /64 fine), null for humans and hits
-- without an address; `evidence` what decided the verification (EVIDENCE_CODES: 0 none,
-- 1 address, 2 signature, 3 reverse DNS, 4 a block a list cuts). Hits stored before keep 0
-- and the reclassification's older rules.
alter table analytics_hits add column address_block text;
alter table analytics_hits add column evidence smallint not null default 0;
