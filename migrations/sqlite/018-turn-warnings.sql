-- What the forge refused of the job's pull request controls when a turn opened or adopted
-- its pull request (a reviewer it does not know, auto-merge not allowed), as a JSON array
-- of messages: the pull request stands, so these are not failures.
alter table job_turns add column warnings text not null default '[]';
