/**
 * Tables keyed by site that a project deletion empties, the counter each one feeds and
 * what it counts: logical rows (one per key), which background merges do not change.
 * Rollup rows are counted once per generation a reclassification left.
 */
export const CLICKHOUSE_SITE_TABLES = [
  { table: 'analytics_hits', counter: 'hits', rows: 'count()' },
  { table: 'analytics_event_ids', counter: 'eventIds', rows: 'uniqExact(event_id)' },
  { table: 'analytics_visitor_gen_days', counter: 'visitorCounts', rows: 'uniqExact(day, gen, dim, grp)' },
  { table: 'analytics_hit_gen_days', counter: 'hitCounts', rows: 'uniqExact(day, gen, class, agent)' },
  { table: 'analytics_page_view_gen_days', counter: 'pageViews', rows: 'uniqExact(day, gen, page, class)' },
  // Not counted: the generations of reclassifications, and the rollups migration 004 replaced
  // (still holding what was stored before it, so deleted too).
  { table: 'analytics_generations', counter: null, rows: 'count()' },
  { table: 'analytics_visitor_cells', counter: null, rows: 'count()' },
  { table: 'analytics_hit_day_writes', counter: null, rows: 'count()' },
  { table: 'analytics_visitor_cell_builds', counter: null, rows: 'count()' },
  { table: 'analytics_visitor_cell_starts', counter: null, rows: 'count()' },
  { table: 'analytics_visitor_days', counter: null, rows: 'count()' },
  { table: 'analytics_hit_days', counter: null, rows: 'count()' },
  { table: 'analytics_page_view_days', counter: null, rows: 'count()' },
] as const;
