import type { Generated } from 'kysely';

/**
 * Analytics (migration 003). The hot paths use raw SQL per dialect (src/analytics/*-store.ts);
 * these types serve typed ad-hoc queries. Visitor numbers are 63-bit: read them as strings or
 * bigints, never as JavaScript numbers.
 */
export interface AnalyticsSitesTable {
  site: Generated<number>;
  project_id: string;
  max_day: Generated<number>;
}

export interface AnalyticsDimensionsTable {
  id: Generated<number>;
  site: number;
  kind: number;
  name: string;
}

export interface AnalyticsUserAgentsTable {
  id: Generated<number>;
  user_agent: string;
}

export interface AnalyticsClassifierVersionsTable {
  id: Generated<number>;
  version: string;
}

export interface AnalyticsHitsTable {
  /** SQLite only: commit-ordered, the fold's mark. */
  seq?: Generated<number>;
  /** PostgreSQL only: the ingest batch (analytics_ingest_batches) that wrote the hit. */
  batch?: number;
  site: number;
  at: number;
  page: number;
  visitor: bigint | string;
  class: number;
  agent: number | null;
  user_agent: number | null;
  referrer: string | null;
  markdown_accept: number;
  classifier_version: number;
  /** Migration 013: CATEGORY_CODES (0 = stored before categories), VERIFICATION_CODES, READ_KIND_CODES. */
  category: Generated<number>;
  verification: Generated<number>;
  read_kind: Generated<number>;
  /** HTTP status of the response, when the sender or the log knew it. */
  status: number | null;
  /** analytics_dimensions id (kind REFERRAL_KIND) of the AI product a human arrived from. */
  referral: number | null;
}

/** PostgreSQL only: ingest batches whose hits are not folded yet. */
export interface AnalyticsIngestBatchesTable {
  id: Generated<number>;
  hits: number;
}

export interface AnalyticsEventIdsTable {
  site: number;
  event_id: string;
  at: number;
}

export interface AnalyticsVisitDaysTable {
  site: number;
  dim: number;
  visitor: bigint | string;
  day: number;
  mask: number;
}

export interface AnalyticsVisitorCountsTable {
  site: number;
  grp: number;
  dim: number;
  day: number;
  prev: number;
  visitors: number;
}

export interface AnalyticsHitCountsTable {
  site: number;
  day: number;
  class: number;
  agent: number;
  hits: number;
}

/** Human and ai hits per page and day, the views report's rollup (migration page-views). */
export interface AnalyticsPageViewCountsTable {
  site: number;
  day: number;
  page: number;
  class: number;
  hits: number;
}

/** The beacon's admitted visitors per client address and day (migration 006); no address is stored. */
export interface AnalyticsBeaconSendersTable {
  day: number;
  project_id: string;
  /** Keyed hash of the client address and the day. */
  sender: bigint | string;
  identities: number;
  /** ",h1,h2,…,": keyed hashes of the admitted (address, user agent) pairs. */
  visitors: string;
}

export interface AnalyticsStateTable {
  name: string;
  value: number;
}

/** The analytics tables of DatabaseSchema (schema.ts). */
export interface AnalyticsSchema {
  analytics_sites: AnalyticsSitesTable;
  analytics_dimensions: AnalyticsDimensionsTable;
  analytics_user_agents: AnalyticsUserAgentsTable;
  analytics_classifier_versions: AnalyticsClassifierVersionsTable;
  analytics_hits: AnalyticsHitsTable;
  analytics_ingest_batches: AnalyticsIngestBatchesTable;
  analytics_event_ids: AnalyticsEventIdsTable;
  analytics_visit_days: AnalyticsVisitDaysTable;
  analytics_visitor_counts: AnalyticsVisitorCountsTable;
  analytics_hit_counts: AnalyticsHitCountsTable;
  analytics_page_view_counts: AnalyticsPageViewCountsTable;
  analytics_state: AnalyticsStateTable;
  analytics_beacon_senders: AnalyticsBeaconSendersTable;
}
