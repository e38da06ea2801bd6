-- Visitor analytics. Hot tables key everything by small integers (site, dimension,
-- 63-bit visitor hash, UTC day number) so the rollups stay compact; docs/analytics.md
-- explains the design. Times are milliseconds since the epoch, days are floor(ms / 86400000).

-- A project's integer key in the analytics tables.
create table analytics_sites (
  site integer primary key autoincrement,
  project_id text not null unique references projects(id) on delete cascade,
  -- Highest day present in analytics_visit_days for this site: a fold only looks for
  -- later visit days of a visitor when a hit is older than this.
  max_day integer not null default -1
);

-- Dictionary of the things visitors are counted per: pages (kind 1) and agents
-- (kind 10 + class code). The site itself is dimension 0; the crawler classes are
-- -3…-5 (human and ai visitors are the site's groups 1 and 2).
create table analytics_dimensions (
  id integer primary key,
  site integer not null,
  kind integer not null,
  name text not null,
  unique (site, kind, name)
);

create table analytics_user_agents (
  id integer primary key,
  user_agent text not null unique
);

create table analytics_classifier_versions (
  id integer primary key,
  version text not null unique
);

-- Raw hits, without any IP address: enough to reclassify history when the agent table changes.
create table analytics_hits (
  seq integer primary key autoincrement,
  site integer not null,
  at integer not null,
  page integer not null,
  visitor integer not null,
  class integer not null,
  agent integer,
  user_agent integer,
  referrer text,
  markdown_accept integer not null,
  classifier_version integer not null
);
create index analytics_hits_site_at on analytics_hits (site, at);

-- Sender-supplied event ids, so a retried batch counts once.
create table analytics_event_ids (
  site integer not null,
  event_id text not null,
  at integer not null,
  primary key (site, event_id)
) without rowid;

-- One row per (dimension, visitor, day) with a bit per group seen that day:
-- 1 human, 2 ai (page and site dimensions), 4 any class (crawler-class and agent dimensions).
create table analytics_visit_days (
  site integer not null,
  dim integer not null,
  visitor integer not null,
  day integer not null,
  mask integer not null,
  primary key (site, dim, visitor, day)
) without rowid;

-- How many visit days of group grp fell on `day` whose previous visit day (same
-- dimension, visitor and group) was `prev` (-1: none). A visitor is in [F, T) exactly
-- once: at their first visit day in range, the one with F <= day < T and prev < F.
-- Keyed by group, then dimension, so a report aggregates in key order without sorting.
create table analytics_visitor_counts (
  site integer not null,
  grp integer not null,
  dim integer not null,
  day integer not null,
  prev integer not null,
  visitors integer not null,
  primary key (site, grp, dim, day, prev)
) without rowid;

create table analytics_hit_counts (
  site integer not null,
  day integer not null,
  class integer not null,
  agent integer not null,
  hits integer not null,
  primary key (site, day, class, agent)
) without rowid;

-- folded_seq: raw hits up to this seq are in the rollups. pruned_before: hits older than
-- this were pruned, so none older may be accepted again (the rollups could not place them).
create table analytics_state (
  name text primary key,
  value integer not null
);
insert into analytics_state (name, value) values ('folded_seq', 0), ('pruned_before', 0);
