-- The page beacon's cap on new visitors per client address and UTC day (issue 9). One row
-- per (day, project, sender): sender is a keyed hash of the client address and the day
-- (never the address), visitors the keyed hashes of the (address, user agent) pairs
-- admitted that day, as ",h1,h2,…," so one statement can test and append (the upsert's
-- row lock makes the cap exact across processes). Rows older than yesterday are deleted
-- by the servers as the day turns; docs/analytics.md has the details.
create table analytics_beacon_senders (
  day integer not null,
  project_id text not null,
  sender bigint not null,
  identities integer not null,
  visitors text not null,
  primary key (day, project_id, sender)
);
