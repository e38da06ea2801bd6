-- Claims stored before the time-ordered ledger key (the hash alone, 32 hex digits) get the
-- expiry in front (10 hex digits), as new claims have it, so a replay of one of them is
-- caught after this upgrade too (docs/classification.md, "Replay"). Where the same nonce
-- was claimed again since, under the new key, that claim is kept and the old row left to
-- expire. The table keeps its layout here: a heap with its expiry index (SQLite's
-- migration of this number drops the expiry index and keys the table by the key).
update analytics_signature_nonces as stale
   set nonce = lpad(to_hex(stale.expires_at), 10, '0') || stale.nonce
 where length(stale.nonce) = 32
   and not exists (
     select 1 from analytics_signature_nonces as claimed
      where claimed.nonce = lpad(to_hex(stale.expires_at), 10, '0') || stale.nonce
   );
