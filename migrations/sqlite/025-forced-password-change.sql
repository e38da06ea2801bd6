-- 1 after an admin reset a user's password (docs/dashboard.md, "Accounts and sessions"):
-- until that user sets a new password, their session opens nothing else.
alter table users add column must_change_password integer not null default 0;
