-- A local-forge pull request page opens only with its share token, which prLink carries
-- as `?token=…`. The token is stored as is, not hashed: the same link is stored in
-- jobs.pr_link and in pull_request events and returned by the API, so a hash here would
-- protect nothing, and the forge must hand the same link out again when a follow-up or a
-- retry updates the pull request. Pages compare it in constant time.
alter table local_pull_requests add column share_token text;

-- Pull requests opened before this migration get a token now: two random UUIDs (244
-- random bits from pg_strong_random, PostgreSQL 13 or later) as 64 hex characters.
-- New ones get theirs from crypto.randomBytes when they are opened.
update local_pull_requests set share_token = replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
alter table local_pull_requests alter column share_token set not null;

-- Links already handed out keep working in their new form. A local-forge link is the one
-- ending in /projects/{project}/pulls/{number} (whatever DOCWRIGHT_PUBLIC_URL was then);
-- GitHub and GitLab links never end like that.
update jobs
  set pr_link = jobs.pr_link || '?token=' || p.share_token
  from local_pull_requests p
  where p.project_id = jobs.project_id
    and p.number = jobs.pr_number
    and right(jobs.pr_link, length('/projects/' || jobs.project_id || '/pulls/' || jobs.pr_number)) = '/projects/' || jobs.project_id || '/pulls/' || jobs.pr_number;

update job_events
  set data = jsonb_set(job_events.data::jsonb, '{url}', to_jsonb((job_events.data::jsonb ->> 'url') || '?token=' || p.share_token))::text
  from jobs j
  join local_pull_requests p on p.project_id = j.project_id
  where j.id = job_events.job_id
    and job_events.type = 'pull_request'
    and p.number::text = (job_events.data::jsonb ->> 'number')
    and right(job_events.data::jsonb ->> 'url', length('/projects/' || j.project_id || '/pulls/' || p.number)) = '/projects/' || j.project_id || '/pulls/' || p.number;
