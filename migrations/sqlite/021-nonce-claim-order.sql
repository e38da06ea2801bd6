-- The nonce table (signature-nonces migration) becomes a rowid table with a unique index on
-- `nonce` (docs/classification.md, "Replay"; docs/benchmarks.md, "the nonce claim's pages").
-- As a WITHOUT ROWID table its expiry index was ordered by (expires_at, nonce): claims that
-- share an expiry second (a burst of signatures made the same second, or a fixed clock)
-- landed at random leaves of that index, one page written per claim. Ordered by
-- (expires_at, rowid), every new claim goes to the end of its expiry's run: a batch writes
-- one random leaf of the nonce index per claim and a page or two of the table and the
-- expiry index, whatever its expiries. Same rows, same uniqueness, same prune.
create table analytics_signature_nonces_next (
  seq integer primary key,
  nonce text not null,
  expires_at bigint not null,
  owner text not null
);
insert into analytics_signature_nonces_next (nonce, expires_at, owner)
  select nonce, expires_at, owner from analytics_signature_nonces order by expires_at, nonce;
drop table analytics_signature_nonces;
alter table analytics_signature_nonces_next rename to analytics_signature_nonces;
create unique index analytics_signature_nonces_nonce on analytics_signature_nonces (nonce);
create index analytics_signature_nonces_expiry on analytics_signature_nonces (expires_at);
