-- Nothing to do on PostgreSQL: the nonce table is a heap, and its expiry index orders equal
-- expiries by heap position, so new claims already go to the end of their expiry's run
-- (SQLite's migration of this number makes its table do the same).
select 1;
