-- Ingest transactions no longer queue on one lock to hand out sequence numbers in commit
-- order. Each transaction records itself in analytics_ingest_batches, in the same
-- transaction as its hits, which carry the batch's id. A fold claims (deletes) the
-- batches it can see, which are exactly the committed ones, and folds their hits: a batch
-- that commits late is simply claimed by a later fold. docs/analytics.md has the details.
create table analytics_ingest_batches (
  id bigint generated always as identity primary key,
  hits integer not null
);

-- Instant (a constant default is not written into existing rows); 0 is "folded before
-- batches existed". New rows must name their batch: the default goes again below.
alter table analytics_hits add column batch bigint not null default 0;

-- Hits the old sequence mark had not folded yet become one batch, folded next.
insert into analytics_ingest_batches (hits)
  select count(*) from analytics_hits where seq > (select value from analytics_state where name = 'folded_seq') having count(*) > 0;
update analytics_hits set batch = (select max(id) from analytics_ingest_batches)
  where seq > (select value from analytics_state where name = 'folded_seq');
alter table analytics_hits alter column batch drop default;
delete from analytics_state where name = 'folded_seq';

-- A batch's hits sit together at the end of the table, so a block-range index finds them
-- at almost no cost per insert (a b-tree here, or the old seq key, cost more CPU per hit
-- than everything else in the insert together).
alter table analytics_hits drop column seq;
create index analytics_hits_batch on analytics_hits using brin (batch) with (pages_per_range = 16, autosummarize = on);
