-- How many problems the job's last turn introduced that Docwright's final docs check still
-- found after the agent's fix rounds (0: none). Such a pull request opens as a draft where
-- the forge has drafts; the turn's problems list them.
alter table jobs add column unresolved_problems integer not null default 0;
