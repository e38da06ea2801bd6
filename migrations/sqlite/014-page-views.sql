-- Views (hits) per page and day, for GET /v1/analytics/{projectId}/views: the companion
-- of the visitors rollups, written by the same fold (fold-statements.ts, countPageViews),
-- so a report reads whole days here and the rest (edges, unfolded hits) from the raw hits.
-- Only the classes /views counts (1 human, 2 ai): crawler hits per page are not kept.
create table analytics_page_view_counts (
  site integer not null,
  day integer not null,
  page integer not null,
  class integer not null,
  hits integer not null,
  primary key (site, day, page, class)
) without rowid;

-- The hits folded so far (the others are counted from the raw table until folded).
-- Days whose raw hits were pruned before this migration have no views.
insert into analytics_page_view_counts (site, day, page, class, hits)
  select site, at / 86400000, page, class, count(*) from analytics_hits
  where class <= 2 and seq <= (select value from analytics_state where name = 'folded_seq')
  group by site, at / 86400000, page, class;

-- The reports over the hit taxonomy (agents, pages, agent 4xx) read raw hits of a range.
-- Agents are never humans, and AI referrals are rare: these partial indexes let those
-- reports read only the hits they count instead of every hit of the range. Humans (most
-- hits) are not in the first, so ingestion pays for it on non-human hits only.
create index analytics_hits_agents_at on analytics_hits (site, at) where class != 1;
create index analytics_hits_referrals_at on analytics_hits (site, at) where referral is not null;
