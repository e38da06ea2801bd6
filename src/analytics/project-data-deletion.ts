import type { Dialect } from '../db/database.js';

/** Rows `deleteProjectData` removed, per table. */
export interface DeletedProjectData {
  /** analytics_hits */
  hits: number;
  /** analytics_event_ids */
  eventIds: number;
  /** analytics_visit_days */
  visitDays: number;
  /** analytics_visitor_counts */
  visitorCounts: number;
  /** analytics_hit_counts */
  hitCounts: number;
  /** analytics_page_view_counts (page-view migration; ClickHouse: analytics_page_view_days) */
  pageViews: number;
  /** analytics_dimensions: the project's pages and agents. */
  dimensions: number;
  /** analytics_beacon_senders: the beacon's new-visitor cap. */
  beaconSenders: number;
  /** analytics_ingest_batches (PostgreSQL): the project's batches not folded yet. */
  ingestBatches: number;
  /** analytics_sites: 1 when the project had analytics. */
  sites: number;
}

export const NOTHING_DELETED: Readonly<DeletedProjectData> = Object.freeze({
  hits: 0,
  eventIds: 0,
  visitDays: 0,
  visitorCounts: 0,
  hitCounts: 0,
  pageViews: 0,
  dimensions: 0,
  beaconSenders: 0,
  ingestBatches: 0,
  sites: 0,
});

/** Rows per delete statement (and per transaction): each one holds the write lock for milliseconds, not minutes. */
export const DELETE_BATCH_ROWS = 10_000;

interface SiteTable {
  table: string;
  counter: keyof DeletedProjectData;
  key: readonly string[];
}

/**
 * Every table keyed by site, in the order they are emptied: raw hits first, so that once
 * the rollups are being deleted no fold can write new ones for the site (a fold only
 * reads hits); the dictionary after the tables that refer to it. Global tables stay:
 * analytics_user_agents and analytics_classifier_versions are shared by every project,
 * analytics_state holds instance-wide marks. Keys are the primary keys (or a unique
 * column), so SQLite deletes a batch through its index.
 */
export const SITE_TABLES: readonly SiteTable[] = [
  { table: 'analytics_hits', counter: 'hits', key: ['seq'] },
  { table: 'analytics_event_ids', counter: 'eventIds', key: ['site', 'event_id'] },
  { table: 'analytics_visit_days', counter: 'visitDays', key: ['site', 'dim', 'visitor', 'day'] },
  { table: 'analytics_visitor_counts', counter: 'visitorCounts', key: ['site', 'grp', 'dim', 'day', 'prev'] },
  { table: 'analytics_hit_counts', counter: 'hitCounts', key: ['site', 'day', 'class', 'agent'] },
  { table: 'analytics_page_view_counts', counter: 'pageViews', key: ['site', 'day', 'page', 'class'] },
  { table: 'analytics_dimensions', counter: 'dimensions', key: ['id'] },
];

/**
 * Deletes at most `limit` rows of one site; takes (site, limit), `?` placeholders.
 * PostgreSQL addresses the rows by ctid (its hits have no key since migration 004), which
 * a TID scan deletes without another index lookup.
 */
export function deleteSiteBatch(dialect: Dialect, { table, key }: SiteTable): string {
  if (dialect === 'postgres') return `delete from ${table} where ctid = any(array(select ctid from ${table} where site = ? limit ?))`;
  const columns = key.join(', ');
  const target = key.length === 1 ? columns : `(${columns})`;
  return `delete from ${table} where ${target} in (select ${columns} from ${table} where site = ? limit ?)`;
}

/** The beacon cap's rows are keyed by project id, not site, and hold about two days: one statement. */
export const DELETE_BEACON_SENDERS = 'delete from analytics_beacon_senders where project_id = ?';
export const DELETE_SITE = 'delete from analytics_sites where site = ?';
