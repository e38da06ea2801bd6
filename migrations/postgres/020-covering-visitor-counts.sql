-- The visitors report sums analytics_visitor_counts over (site, grp) in key order; with
-- the count in the key's index it reads the index alone (an index-only scan) instead of
-- every heap page of the table, which the fold's upserts leave several times the size of
-- its rows. At 10M hits (0.5M cells, 130 MB of heap) the 30-day report's rollup query
-- took 290–320 ms instead of 380–640 ms on the shared 2-core machine (docs/benchmarks.md).
-- The key is unchanged, so the fold's ON CONFLICT (site, grp, dim, day, prev) still finds it.
alter table analytics_visitor_counts
  drop constraint analytics_visitor_counts_pkey,
  add constraint analytics_visitor_counts_pkey primary key (site, grp, dim, day, prev) include (visitors);
