-- Nothing to do on SQLite: analytics_visitor_counts is a WITHOUT ROWID table, so its
-- primary key already holds the count (PostgreSQL's migration of this number adds the
-- count to its key's index).
select 1;
