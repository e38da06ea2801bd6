-- Fencing (docs/operations.md, "Fencing and exactly one pull request per job"). Every claim
-- of a queue row stores a new token from one sequence; every write of the run that claimed
-- it checks, in its own transaction, that the row still carries that token. A worker paused
-- past its lease (a slow VM, SIGSTOP, a long GC) finds its token replaced by the next claim
-- and can no longer change the job.
--
-- One sequence rather than a per-row counter: a job's queue row is deleted when the job
-- settles and inserted again by a follow-up, so a per-row counter would start over and a
-- stale worker's old token could match a new claim. Tokens from a sequence never repeat.
create sequence job_lease_tokens;
alter table job_queue add column lease_token bigint not null default 0;
