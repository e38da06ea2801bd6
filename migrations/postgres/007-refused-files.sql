-- The paths the write policy kept out of a turn's commit (refused by a tool or unstaged
-- by the commit step), as a JSON array of {path, reason}.
alter table job_turns add column refused_files text not null default '[]';
