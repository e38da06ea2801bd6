-- Web Bot Auth nonces seen by any server process of the deployment (docs/classification.md,
-- "Replay"): a signed request replayed to another process is caught here. One row per
-- verified nonce until its signature expires (at most 24 hours and a minute): `nonce` is a
-- hash of (Signature-Agent origin, key id, nonce), never the nonce itself; `owner` a hash of
-- the event id that used it ('' for none), so a retried event is not its own replay. Expired
-- rows are reused by the insert and deleted by the servers in the background.
create table analytics_signature_nonces (
  nonce text primary key,
  expires_at bigint not null,
  owner text not null
);
create index analytics_signature_nonces_expiry on analytics_signature_nonces (expires_at);
