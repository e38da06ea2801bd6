-- The nonce table keyed by its ledger key alone (docs/classification.md, "Replay"). Since
-- keys lead with the signature's expiry (10 hex digits, then 128 bits of the nonce's hash),
-- the key orders the rows by expiry, so the expiry index is redundant: expired rows are
-- the keys below the current second's hex, and the prune deletes that range of the key.
-- As a WITHOUT ROWID table a claim writes one b-tree (the newest leaf of the key) where
-- the rowid table wrote three (table, unique index, expiry index): about 3 WAL pages less
-- per batch carrying signed nonces (docs/benchmarks.md, "The nonce ledger keyed by its key").
-- Claims stored before the time-ordered key (the hash alone, 32 hex digits) get their
-- expiry in front, so a replay of one of them is caught after this upgrade too; where the
-- same nonce was claimed again since, under the new key, that claim is kept.
create table analytics_signature_nonces_keyed (
  nonce text primary key,
  expires_at bigint not null,
  owner text not null
) without rowid;
insert or ignore into analytics_signature_nonces_keyed (nonce, expires_at, owner)
  select case when length(nonce) = 32 then printf('%010x', expires_at) || nonce else nonce end, expires_at, owner
  from analytics_signature_nonces
  order by length(nonce) desc;
drop table analytics_signature_nonces;
alter table analytics_signature_nonces_keyed rename to analytics_signature_nonces;
