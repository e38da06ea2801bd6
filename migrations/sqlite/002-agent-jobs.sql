create table jobs (
  id text primary key,
  project_id text not null references projects(id) on delete cascade,
  status text not null check (status in ('active', 'completed', 'archived', 'failed')),
  model text not null,
  repository text not null,
  ref text not null,
  branch text not null,
  pr_number integer,
  pr_link text,
  error_code text,
  error_message text,
  created_at bigint not null,
  updated_at bigint not null,
  archived_at bigint
);
create index jobs_project_created on jobs (project_id, created_at desc, id desc);
create index jobs_project_status on jobs (project_id, status, created_at desc);

-- One row per prompt: the first one and every follow-up, in order.
create table job_turns (
  id text primary key,
  job_id text not null references jobs(id) on delete cascade,
  sequence integer not null,
  prompt text not null,
  status text not null check (status in ('queued', 'running', 'completed', 'failed', 'cancelled')),
  final_message text,
  steps text not null default '[]',
  files_changed text not null default '[]',
  commit_sha text,
  problems text not null default '[]',
  error_code text,
  error_message text,
  input_tokens bigint not null default 0,
  output_tokens bigint not null default 0,
  attempts integer not null default 0,
  created_at bigint not null,
  started_at bigint,
  finished_at bigint,
  unique (job_id, sequence)
);

-- The durable queue: a row means "this job has turns to run". Claimed with a lease
-- that a live worker keeps extending; an expired lease means the worker died.
create table job_queue (
  job_id text primary key references jobs(id) on delete cascade,
  run_at bigint not null,
  locked_by text,
  locked_until bigint,
  created_at bigint not null
);
create index job_queue_ready on job_queue (run_at);

create table job_events (
  id integer primary key autoincrement,
  job_id text not null references jobs(id) on delete cascade,
  type text not null,
  data text not null,
  created_at bigint not null
);
create index job_events_job on job_events (job_id, id);

create table rate_limit_hits (
  id integer primary key autoincrement,
  project_id text not null references projects(id) on delete cascade,
  bucket text not null,
  at bigint not null
);
create index rate_limit_hits_window on rate_limit_hits (project_id, bucket, at);

create table idempotency_keys (
  project_id text not null references projects(id) on delete cascade,
  key text not null,
  operation text not null,
  request_hash text not null,
  state text not null check (state in ('in_flight', 'done')),
  response_status integer,
  response_body text,
  created_at bigint not null,
  expires_at bigint not null,
  primary key (project_id, key)
);
create index idempotency_keys_expiry on idempotency_keys (expires_at);

-- Pull requests of the built-in local forge.
create table local_pull_requests (
  project_id text not null references projects(id) on delete cascade,
  number integer not null,
  title text not null,
  body text not null,
  base text not null,
  head text not null,
  state text not null check (state in ('open', 'closed', 'merged')),
  created_at bigint not null,
  updated_at bigint not null,
  primary key (project_id, number),
  unique (project_id, head)
);
