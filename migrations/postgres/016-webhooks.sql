-- Webhooks (docs/webhooks.md): endpoints per project, an outbox of messages written in the
-- same transaction as the change they announce, and a log of every delivery attempt.
--
-- Secrets are sealed with SecretBox (bound to the endpoint's id), never stored in plaintext.
-- During a rotation the previous secret stays valid (signed with too) until its expiry.
create table webhook_endpoints (
  id text primary key,
  project_id text not null,
  url text not null,
  description text not null default '',
  events text not null,
  enabled integer not null default 1,
  secret_sealed text not null,
  previous_secret_sealed text,
  previous_secret_expires_at bigint,
  created_at bigint not null,
  updated_at bigint not null
);
create index webhook_endpoints_project on webhook_endpoints (project_id, created_at);

-- One row per event and endpoint; its id is the `webhook-id` of every attempt, redeliveries
-- included. `attempts` counts every attempt (it also fences a claim: a worker whose lease
-- passed on cannot record its result); `failures` counts the scheduled ones since the last
-- success or manual redelivery and picks the next delay; `manual` marks the next attempt
-- as a redelivery asked for through the API.
create table webhook_messages (
  id text primary key,
  project_id text not null,
  endpoint_id text not null,
  event_type text not null,
  data text not null,
  occurred_at bigint not null,
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  failures integer not null default 0,
  manual integer not null default 0,
  next_attempt_at bigint not null,
  locked_by text,
  locked_until bigint,
  last_error text,
  created_at bigint not null,
  finished_at bigint
);
create index webhook_messages_due on webhook_messages (status, next_attempt_at);
create index webhook_messages_endpoint on webhook_messages (endpoint_id, status, created_at);
create index webhook_messages_finished on webhook_messages (finished_at);

create table webhook_attempts (
  id text primary key,
  message_id text not null,
  endpoint_id text not null,
  attempt integer not null,
  trigger text not null check (trigger in ('scheduled', 'manual')),
  started_at bigint not null,
  duration_ms integer not null,
  outcome text not null check (outcome in ('succeeded', 'failed')),
  response_status integer,
  response_body text,
  error_code text,
  error_message text
);
create index webhook_attempts_message on webhook_attempts (message_id, attempt);
