create table projects (
  id text primary key,
  name text not null,
  repository text not null,
  ref text not null default 'main',
  forge text not null check (forge in ('local', 'github', 'gitlab')),
  settings text not null default '{}',
  forge_credentials text,
  created_at bigint not null,
  updated_at bigint not null
);

create table api_keys (
  id text primary key,
  project_id text not null references projects(id) on delete cascade,
  scope text not null check (scope in ('admin', 'ingest')),
  name text,
  key_hash text not null unique,
  key_hint text not null,
  created_at bigint not null,
  expires_at bigint,
  last_used_at bigint,
  revoked_at bigint
);

create index api_keys_project on api_keys (project_id, created_at);
