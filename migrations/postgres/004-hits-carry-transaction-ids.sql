-- Ingest transactions no longer queue on one lock to hand out sequence numbers in commit
-- order. Instead each hit carries the id of the transaction that wrote it, and a fold
-- takes only hits of transactions that have ended (src/analytics/postgres-fold-horizon.ts
-- explains how it tells). The column default costs no table rewrite: existing rows get '0'.
alter table analytics_hits add column transaction_id xid8 not null default '0';
alter table analytics_hits alter column transaction_id set default pg_current_xact_id();

-- Hits the old sequence mark had not folded yet are taken by the first fold from here on.
update analytics_hits set transaction_id = '1' where seq > (select value from analytics_state where name = 'folded_seq');
insert into analytics_state (name, value) values ('folded_transaction', 1);
delete from analytics_state where name = 'folded_seq';

create index analytics_hits_transaction on analytics_hits (transaction_id);
