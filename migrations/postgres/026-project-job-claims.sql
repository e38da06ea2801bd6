-- Fair job claims (docs/agent-jobs.md, "Scheduling"). A claim takes, among the projects
-- with ready work under their cap (DOCWRIGHT_JOBS_PER_PROJECT), the one whose last claim
-- is the oldest, then that project's oldest ready job: one project's burst no longer
-- delays every other project's jobs. Additive: an older process keeps working beside it.
--
-- The queue row carries its job's project, so a claim reads only the queue (not every job
-- ever created) and finds a project's oldest ready row and live leases by index. A trigger
-- fills it from the job, for this release's inserts and an older process's alike.
alter table job_queue add column project_id text not null default '';
update job_queue set project_id = jobs.project_id from jobs where jobs.id = job_queue.job_id;
create index job_queue_project_ready on job_queue (project_id, run_at);

create function job_queue_project() returns trigger language plpgsql as $$
begin
  select project_id into new.project_id from jobs where id = new.job_id;
  return new;
end
$$;
create trigger job_queue_project before insert on job_queue for each row execute function job_queue_project();

-- `last_token` is the lease token of the project's latest claim: tokens come from one
-- sequence, so they order claims exactly (two in one millisecond included) with no clock.
-- Only a claimer holding the project's advisory lock writes its row.
create table project_job_claims (
  project_id text primary key references projects(id) on delete cascade,
  last_token bigint not null
);
