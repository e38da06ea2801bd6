-- Local pull requests can now be merged and closed from the dashboard (src/pull-requests/).
-- A merge records the merge commit it created (null when the base already contained the
-- head) and the two commits it compared, so a merged pull request keeps showing the diff
-- it was merged with after its branch is part of the base.
alter table local_pull_requests add column merge_commit text;
alter table local_pull_requests add column merged_base text;
alter table local_pull_requests add column merged_head text;

-- The job shows its local pull request's state (`prStatus`) without a join on the poll
-- route, which clients call in loops: the merge and close transactions update both rows.
-- Null for GitHub and GitLab projects and for jobs without a pull request.
alter table jobs add column pr_status text check (pr_status in ('open', 'merged', 'closed'));

update jobs
  set pr_status = p.state
  from local_pull_requests p, projects
  where p.project_id = jobs.project_id
    and p.head = jobs.branch
    and jobs.pr_number is not null
    and projects.id = jobs.project_id
    and projects.forge = 'local';

-- The project's job stream reads the jobs that changed lately.
create index jobs_project_updated on jobs (project_id, updated_at);
