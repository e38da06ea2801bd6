-- Placeholder on branch sec-edges-http only: migration 005 belongs to another change
-- (sec-pr-pages). The migrator wants numbers without gaps, so this stands in for it
-- until the branches are merged. Drop this file at merge time.
select 1;
