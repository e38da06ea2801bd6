-- PostgreSQL's migration 004 records each ingest transaction as a batch so concurrent
-- ingest transactions need no common lock. SQLite runs one write transaction at a time,
-- so its sequence numbers are already handed out in commit order and its folds keep
-- using them. Nothing changes here; the file keeps the two folders' numbers in step.
select 1;
