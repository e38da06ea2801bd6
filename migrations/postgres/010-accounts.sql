-- Dashboard accounts (docs/dashboard.md). email_key is the address in lower case, so one
-- mailbox gets one account however it is spelled; email keeps the spelling given.
create table users (
  id text primary key,
  email text not null,
  email_key text not null unique,
  password_hash text not null,
  role text not null check (role in ('admin', 'member')),
  created_at bigint not null
);

-- Browser sessions. id is the SHA-256 (hex) of the secret in the dw_session cookie, never
-- the secret itself. expires_at = min(last_used_at + 7 days, created_at + 30 days).
create table sessions (
  id text primary key,
  user_id text not null references users(id) on delete cascade,
  csrf_token text not null,
  created_at bigint not null,
  last_used_at bigint not null,
  expires_at bigint not null
);
create index sessions_user on sessions (user_id);
create index sessions_expiry on sessions (expires_at);

-- Failed sign-ins in the last window, per subject: a keyed hash of the client address or
-- of the email (never the address or email itself).
create table sign_in_failures (
  id bigserial primary key,
  subject text not null,
  at bigint not null
);
create index sign_in_failures_subject on sign_in_failures (subject, at);
