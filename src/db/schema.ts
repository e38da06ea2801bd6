import type { Generated } from 'kysely';

/**
 * Table types for the Kysely query builder. Times are integer milliseconds since the
 * epoch in both dialects (bigint in PostgreSQL, parsed back to number), which keeps one
 * query code for both and makes time arithmetic in SQL trivial.
 */
/** v1 credentials as they were when migration 008 ran: the only ones upgraded to v2. */
export interface LegacyForgeCredentialsTable {
  project_id: string;
  sealed: string;
}

export interface ProjectsTable {
  id: string;
  name: string;
  repository: string;
  ref: string;
  forge: string;
  settings: string;
  forge_credentials: string | null;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  scope: string;
  name: string | null;
  key_hash: string;
  key_hint: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** Dashboard accounts; email_key is the lower-cased address (unique). */
export interface UsersTable {
  id: string;
  email: string;
  email_key: string;
  password_hash: string;
  role: string;
  created_at: number;
}

/** Browser sessions, keyed by the SHA-256 of the cookie's secret. */
export interface SessionsTable {
  id: string;
  user_id: string;
  csrf_token: string;
  created_at: number;
  last_used_at: number;
  expires_at: number;
}

export interface SignInFailuresTable {
  id: Generated<number>;
  subject: string;
  at: number;
}

export interface MigrationsTable {
  version: number;
  name: string;
  applied_at: number;
}

export interface JobsTable {
  id: string;
  project_id: string;
  status: string;
  model: string;
  repository: string;
  ref: string;
  branch: string;
  pr_number: number | null;
  pr_link: string | null;
  /** The local forge's pull request state: open, merged or closed; null for other forges (migration 009). */
  pr_status: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
  /** The sums of the job's turns (migration 017): tokens, and the estimated cost in millionths of a USD (null: no price known). */
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_microusd: number | null;
  /** JSON of the pull request controls given at creation (migration 017); null = none. */
  pull_request_options: string | null;
}

/** A project's usage in one UTC month, 'YYYY-MM' (migration 017). */
export interface ProjectUsageMonthsTable {
  project_id: string;
  month: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_microusd: number;
  /** Tokens of models without a price: counted in the tokens, not in the cost. */
  unpriced_tokens: number;
}

export interface JobTurnsTable {
  id: string;
  job_id: string;
  sequence: number;
  prompt: string;
  status: string;
  final_message: string | null;
  steps: string;
  files_changed: string;
  commit_sha: string | null;
  problems: string;
  /** JSON array of {path, reason}: changes the write policy kept out (migration 007). */
  refused_files: string;
  error_code: string | null;
  error_message: string | null;
  input_tokens: number;
  output_tokens: number;
  /** Cache reads among input_tokens, and the estimated cost in millionths of a USD (migration 017). */
  cached_input_tokens: number;
  cost_microusd: number | null;
  attempts: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface JobQueueTable {
  job_id: string;
  run_at: number;
  locked_by: string | null;
  locked_until: number | null;
  created_at: number;
  /** The fencing token of the last claim (migration 011); 0 until the row is first claimed. */
  lease_token: Generated<number>;
}

/** SQLite only: the counter lease tokens are taken from (PostgreSQL uses the sequence `job_lease_tokens`). */
export interface JobLeaseTokensTable {
  id: number;
  last_token: number;
}

/** A project's webhook endpoint (docs/webhooks.md). Secrets are SecretBox-sealed for the endpoint's id. */
export interface WebhookEndpointsTable {
  id: string;
  project_id: string;
  url: string;
  description: string;
  /** JSON array of event types; empty means every event. */
  events: string;
  /** 1 or 0 (one spelling for both dialects). */
  enabled: number;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The outbox: one message per event and endpoint; its id is the `webhook-id`. */
export interface WebhookMessagesTable {
  id: string;
  project_id: string;
  endpoint_id: string;
  event_type: string;
  /** JSON of the event's data, without links (added when the payload is rendered). */
  data: string;
  occurred_at: number;
  status: string;
  attempts: number;
  failures: number;
  /** 1 while a redelivery asked for through the API waits for its attempt. */
  manual: number;
  next_attempt_at: number;
  locked_by: string | null;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface WebhookAttemptsTable {
  id: string;
  message_id: string;
  endpoint_id: string;
  attempt: number;
  trigger: string;
  started_at: number;
  duration_ms: number;
  outcome: string;
  response_status: number | null;
  response_body: string | null;
  error_code: string | null;
  error_message: string | null;
}

export interface JobEventsTable {
  id: Generated<number>;
  job_id: string;
  type: string;
  data: string;
  created_at: number;
}

/** The last `limit` accepted hits per (project, bucket), numbered 1, 2, 3… (migration 012). */
export interface RateLimitHitsTable {
  project_id: string;
  bucket: string;
  seq: number;
  at: number;
  /** The limit in force when the hit was accepted: every stored hit is within `kept` places of the newest. */
  kept: number;
}

/** Hits per (fixed window, bucket, subject), shared by every process (migration 012). */
export interface RateLimitWindowsTable {
  window_start: number;
  bucket: string;
  /** A keyed hash of whom the bucket limits (for the beacon: project and client address). */
  subject: string;
  hits: number;
}

export interface IdempotencyKeysTable {
  project_id: string;
  key: string;
  operation: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  created_at: number;
  expires_at: number;
}

export interface LocalPullRequestsTable {
  project_id: string;
  number: number;
  title: string;
  body: string;
  base: string;
  head: string;
  state: string;
  /** Opens the pull request's page (migration 005); in prLink as `?token=`. */
  share_token: string;
  /** Set by a merge (migration 009): the merge commit, null when the base already had the head. */
  merge_commit: string | null;
  /** The base and head commits a merge compared: a merged pull request's diff stays what was merged. */
  merged_base: string | null;
  merged_head: string | null;
  created_at: number;
  updated_at: number;
}

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

export interface DatabaseSchema {
  projects: ProjectsTable;
  legacy_forge_credentials: LegacyForgeCredentialsTable;
  api_keys: ApiKeysTable;
  users: UsersTable;
  sessions: SessionsTable;
  sign_in_failures: SignInFailuresTable;
  docwright_migrations: MigrationsTable;
  jobs: JobsTable;
  job_turns: JobTurnsTable;
  job_queue: JobQueueTable;
  job_lease_tokens: JobLeaseTokensTable;
  job_events: JobEventsTable;
  project_usage_months: ProjectUsageMonthsTable;
  rate_limit_hits: RateLimitHitsTable;
  rate_limit_windows: RateLimitWindowsTable;
  idempotency_keys: IdempotencyKeysTable;
  local_pull_requests: LocalPullRequestsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_attempts: WebhookAttemptsTable;
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

export type { Generated };
