import type { Generated } from 'kysely';
import type { AnalyticsSchema } from './analytics-schema.js';

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
  /** 1 after an admin reset the password: the user must set a new one before anything else. */
  must_change_password: number;
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
  /** Cache writes among input_tokens (migration 023). */
  cache_write_tokens: number;
  cost_microusd: number | null;
  /** JSON of the pull request controls given at creation (migration 017); null = none. */
  pull_request_options: string | null;
  /** Problems the last turn introduced that the final docs check still found (migration 024). */
  unresolved_problems: number;
}

/** A project's usage in one UTC month, 'YYYY-MM' (migration 017). */
export interface ProjectUsageMonthsTable {
  project_id: string;
  month: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  /** Cache writes among input_tokens (migration 023). */
  cache_write_tokens: number;
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
  /** JSON array of messages: pull request controls the forge refused (the turn-warnings migration). */
  warnings: string;
  error_code: string | null;
  error_message: string | null;
  input_tokens: number;
  output_tokens: number;
  /** Cache reads among input_tokens, and the estimated cost in millionths of a USD (migration 017). */
  cached_input_tokens: number;
  /** Cache writes among input_tokens (migration 023). */
  cache_write_tokens: number;
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
  /** The job's project (migration 026): what fair claims order by. */
  project_id: string;
}

/** SQLite only: the counter lease tokens are taken from (PostgreSQL uses the sequence `job_lease_tokens`). */
export interface JobLeaseTokensTable {
  id: number;
  last_token: number;
}

/** The lease token of each project's latest job claim: the fair claim's order (migration 026, job-queue.ts). */
export interface ProjectJobClaimsTable {
  project_id: string;
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

/** Every table; the analytics ones are in analytics-schema.ts. */
export interface DatabaseSchema extends AnalyticsSchema {
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
  project_job_claims: ProjectJobClaimsTable;
  job_events: JobEventsTable;
  project_usage_months: ProjectUsageMonthsTable;
  rate_limit_hits: RateLimitHitsTable;
  rate_limit_windows: RateLimitWindowsTable;
  idempotency_keys: IdempotencyKeysTable;
  local_pull_requests: LocalPullRequestsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_attempts: WebhookAttemptsTable;
}

export type { Generated };
export type {
  AnalyticsSitesTable,
  AnalyticsDimensionsTable,
  AnalyticsUserAgentsTable,
  AnalyticsClassifierVersionsTable,
  AnalyticsHitsTable,
  AnalyticsIngestBatchesTable,
  AnalyticsEventIdsTable,
  AnalyticsVisitDaysTable,
  AnalyticsVisitorCountsTable,
  AnalyticsHitCountsTable,
  AnalyticsPageViewCountsTable,
  AnalyticsBeaconSendersTable,
  AnalyticsStateTable,
} from './analytics-schema.js';
