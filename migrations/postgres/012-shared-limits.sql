-- Limits that hold across processes (docs/operations.md, "Limits across processes").
--
-- 1. The agent rate limit keeps the last `limit` accepted hits of each (project, bucket),
-- numbered by `seq` (1, 2, 3… per project and bucket), instead of every hit of the window:
-- a request reads the newest hit and the oldest hit still inside the window (two index
-- seeks), so its cost does not grow with the hits in the window. Each accepted hit deletes
-- the ones `limit` or more places back, which have left the window (else it would have been
-- refused). Times never go backwards within a project (a hit is stored at least at the time
-- of the one before it), so the in-window hits are exactly the seqs from the oldest in the
-- window to the newest. `kept` is the limit in force when the hit was accepted: every stored
-- hit of the project lies within `kept` places of the newest, which bounds the delete's range
-- from below (it never walks over rows deleted earlier). The old rows move over in time
-- order, each with `kept` = the number moved, which keeps that true.
create table rate_limit_hits_by_seq (
  project_id text not null references projects(id) on delete cascade,
  bucket text not null,
  seq bigint not null,
  at bigint not null,
  kept integer not null,
  primary key (project_id, bucket, seq)
);
insert into rate_limit_hits_by_seq (project_id, bucket, seq, at, kept)
  select project_id, bucket, row_number() over (partition by project_id, bucket order by at, id), at, count(*) over (partition by project_id, bucket)
  from rate_limit_hits;
drop table rate_limit_hits;
alter table rate_limit_hits_by_seq rename to rate_limit_hits;
alter table rate_limit_hits rename constraint rate_limit_hits_by_seq_pkey to rate_limit_hits_pkey;
create index rate_limit_hits_window on rate_limit_hits (project_id, bucket, at, seq);

-- 2. Fixed-window counters shared by every process (the page beacon's limit per address):
-- one row per (window, bucket, subject) counting the window's hits, raised by one upsert
-- per group of requests. subject is a keyed hash (never an address). Rows of windows before
-- the previous one are deleted by the servers. Unlogged: no WAL, so a counter costs no
-- fsync; a crash empties the table (and a standby has none), which only forgives the
-- current minute's counts.
create unlogged table rate_limit_windows (
  window_start bigint not null,
  bucket text not null,
  subject text not null,
  hits integer not null,
  primary key (window_start, bucket, subject)
);
