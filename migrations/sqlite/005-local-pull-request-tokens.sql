-- A local-forge pull request page opens only with its share token, which prLink carries
-- as `?token=…`. The token is stored as is, not hashed: the same link is stored in
-- jobs.pr_link and in pull_request events and returned by the API, so a hash here would
-- protect nothing, and the forge must hand the same link out again when a follow-up or a
-- retry updates the pull request. Pages compare it in constant time.
alter table local_pull_requests add column share_token text not null default '';

-- Pull requests opened before this migration get a token now: 24 bytes (192 bits) of
-- SQLite's randomness (a ChaCha20 generator seeded from the operating system), as hex.
-- New ones get theirs from crypto.randomBytes when they are opened.
update local_pull_requests set share_token = lower(hex(randomblob(24))) where share_token = '';

-- Links already handed out keep working in their new form. A local-forge link is the one
-- ending in /projects/{project}/pulls/{number} (whatever DOCWRIGHT_PUBLIC_URL was then);
-- GitHub and GitLab links never end like that.
update jobs
  set pr_link = jobs.pr_link || '?token=' || p.share_token
  from local_pull_requests p
  where p.project_id = jobs.project_id
    and p.number = jobs.pr_number
    and substr(jobs.pr_link, -length('/projects/' || jobs.project_id || '/pulls/' || jobs.pr_number)) = '/projects/' || jobs.project_id || '/pulls/' || jobs.pr_number;

update job_events
  set data = json_set(job_events.data, '$.url', json_extract(job_events.data, '$.url') || '?token=' || p.share_token)
  from jobs j
  join local_pull_requests p on p.project_id = j.project_id
  where j.id = job_events.job_id
    and job_events.type = 'pull_request'
    and p.number = json_extract(job_events.data, '$.number')
    and substr(json_extract(job_events.data, '$.url'), -length('/projects/' || j.project_id || '/pulls/' || p.number)) = '/projects/' || j.project_id || '/pulls/' || p.number;
