-- Usage and cost (docs/agent-jobs.md, "Usage, cost and budgets"). Tokens are the AI SDK's:
-- input (cached reads included), output, and the cached reads among the input. Costs are
-- estimates in millionths of a US dollar (integers, so sums are exact); null = the model
-- had no price when its tokens were used.
alter table job_turns add column cached_input_tokens bigint not null default 0;
alter table job_turns add column cost_microusd bigint;
alter table jobs add column input_tokens bigint not null default 0;
alter table jobs add column output_tokens bigint not null default 0;
alter table jobs add column cached_input_tokens bigint not null default 0;
alter table jobs add column cost_microusd bigint;
update jobs set
  input_tokens = (select coalesce(sum(input_tokens), 0) from job_turns where job_turns.job_id = jobs.id),
  output_tokens = (select coalesce(sum(output_tokens), 0) from job_turns where job_turns.job_id = jobs.id);

-- A project's usage per UTC month ('YYYY-MM'), kept in the same transactions as the turns'
-- (the monthly token budget reads one row). Earlier turns are counted in the month they started.
create table project_usage_months (
  project_id text not null references projects(id) on delete cascade,
  month text not null,
  input_tokens bigint not null default 0,
  output_tokens bigint not null default 0,
  cached_input_tokens bigint not null default 0,
  cost_microusd bigint not null default 0,
  unpriced_tokens bigint not null default 0,
  primary key (project_id, month)
);
insert into project_usage_months (project_id, month, input_tokens, output_tokens)
  select jobs.project_id, strftime('%Y-%m', job_turns.started_at / 1000, 'unixepoch'), sum(job_turns.input_tokens), sum(job_turns.output_tokens)
  from job_turns join jobs on jobs.id = job_turns.job_id
  where job_turns.started_at is not null and job_turns.input_tokens + job_turns.output_tokens > 0
  group by 1, 2;
update project_usage_months set unpriced_tokens = input_tokens + output_tokens;

-- Pull request controls given at creation (docs/agent-jobs.md, "Branch and review controls"):
-- JSON {draft?, reviewers?, labels?, autoMerge?}; null when none was given.
alter table jobs add column pull_request_options text;
