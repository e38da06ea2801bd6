-- Fair job claims (docs/agent-jobs.md, "Scheduling"). A claim takes, among the projects
-- with ready work under their cap (DOCWRIGHT_JOBS_PER_PROJECT), the one whose last claim
-- is the oldest, then that project's oldest ready job: one project's burst no longer
-- delays every other project's jobs.
--
-- The queue row carries its job's project (written with the row, job-service.ts), so a
-- claim reads only the queue (not every job ever created) and finds a project's oldest
-- ready row and live leases by index.
alter table job_queue add column project_id text not null default '';
update job_queue set project_id = jobs.project_id from jobs where jobs.id = job_queue.job_id;
create index job_queue_project_ready on job_queue (project_id, run_at);

-- `last_token` is the lease token of the project's latest claim: tokens come from one
-- sequence, so they order claims exactly (two in one millisecond included) with no clock.
-- Only a claimer holding the project's advisory lock writes its row.
create table project_job_claims (
  project_id text primary key references projects(id) on delete cascade,
  last_token bigint not null
);
