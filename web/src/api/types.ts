// The JSON shapes of the server's answers the dashboard reads (docs/dashboard.md,
// docs/agent-jobs.md, docs/analytics.md). Only the fields the pages use are listed.

export type Role = 'admin' | 'member';

export interface User {
  id: string;
  email: string;
  role: Role;
  createdAt?: string;
}

export interface Session {
  setupRequired: boolean;
  user: User | null;
  csrfToken: string;
}

export interface SignedIn {
  user: User;
  csrfToken: string;
}

export type ForgeKind = 'local' | 'github' | 'gitlab';

export interface ProjectSettings {
  model?: string;
  rateLimitPerHour?: number;
  allowedOrigins?: string[];
  /** The docs site's hosts a Web Bot Auth signature must name; default: allowedOrigins' hosts. */
  siteHosts?: string[];
  rotateVisitorIdsDaily?: boolean;
  writePolicy?: { allow?: string[]; deny?: string[] };
}

export interface Project {
  id: string;
  name: string;
  repository: string;
  ref: string;
  forge: ForgeKind;
  settings: ProjectSettings;
  hasForgeCredentials: boolean;
  createdAt: string;
  updatedAt: string;
}

export type KeyScope = 'admin' | 'ingest';

export interface ApiKeyInfo {
  id: string;
  name: string | null;
  hint: string;
  scope: KeyScope;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface CreatedKey {
  key: ApiKeyInfo;
  secret: string;
}

export type JobStatus = 'active' | 'completed' | 'archived' | 'failed';
export const JOB_STATUSES: readonly JobStatus[] = ['active', 'completed', 'failed', 'archived'];

export type PullRequestStatus = 'open' | 'merged' | 'closed';

export interface JobError {
  code: string;
  message: string;
}

export interface Job {
  id: string;
  status: JobStatus;
  source: { repository: string; ref: string };
  model: string;
  prLink: string | null;
  /** Local forge only; absent on servers without the pull-request API. */
  prStatus?: PullRequestStatus | null;
  createdAt: string;
  archivedAt: string | null;
  updatedAt: string;
  error: JobError | null;
}

export interface JobList {
  jobs: Job[];
  hasMore: boolean;
}

export type TurnStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface ToolStep {
  toolName: string;
  argumentSummary: string;
  ok: boolean;
  error?: string;
}

export interface DocsProblem {
  path: string;
  line?: number;
  message: string;
  kind: string;
  new?: boolean;
}

/** The optional pull request controls of a new job (docs/agent-jobs.md). */
export interface JobControls {
  ref?: string;
  branchName?: string;
  draft?: boolean;
  reviewers?: string[];
  labels?: string[];
  autoMerge?: boolean;
  mergeMethod?: 'merge' | 'squash' | 'rebase';
}

export interface Turn {
  sequence: number;
  prompt: string;
  status: TurnStatus;
  finalMessage: string | null;
  steps: ToolStep[];
  filesChanged: string[];
  commit: string | null;
  problems: DocsProblem[];
  refusedFiles: Array<{ path: string; reason: string }>;
  /** Pull request controls the forge refused (a reviewer it does not know, auto-merge not allowed). */
  warnings: string[];
  error: JobError | null;
  usage: { inputTokens: number; outputTokens: number; estimatedCostUsd: number | null };
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface PullRequestFile {
  path: string;
  /** The old path of a renamed or copied file. */
  previousPath?: string;
  status: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

export interface PullRequest {
  number: number;
  title: string;
  body: string;
  /** Sanitised by the server; the only HTML the dashboard inserts as HTML. */
  bodyHtml: string;
  status: PullRequestStatus;
  base: string;
  head: string;
  jobId: string | null;
  files: PullRequestFile[];
  filesTruncated: boolean;
  diff: string;
  diffTruncated: boolean;
  /** False when a branch is gone: diff and files are then empty. */
  diffAvailable: boolean;
  mergeCommit: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface VisitorCounts {
  human: number;
  ai: number;
  total: number;
}

export interface PageVisitors extends VisitorCounts {
  path: string;
}

export interface VisitorsReport {
  totals: VisitorCounts;
  visitors: PageVisitors[];
  hasMore: boolean;
}

export interface DailyReport {
  dateFrom: string;
  dateTo: string;
  days: Array<VisitorCounts & { date: string }>;
}

export type HitClass = 'human' | 'ai' | 'ai-search' | 'ai-training' | 'bot';

export interface TrafficReport {
  classes: Array<{ class: HitClass; hits: number; visitors: number }>;
  agents: Array<{ agent: string; class: HitClass; hits: number; visitors: number }>;
  hasMoreAgents: boolean;
}

/** An RFC 9457 problem body as Docwright sends it. */
export interface Problem {
  status?: number;
  title?: string;
  detail?: string;
  code?: string;
  errors?: Array<{ path: string; message: string }>;
  files?: string[];
  requestId?: string;
}

/** An entry of GET /v1/analytics/{projectId}/agents. */
export interface AgentReportEntry {
  agent: string;
  class: HitClass;
  category: string;
  visitors: number;
  hits: number;
  verifiedHits: number;
  verifiedShare: number;
  spoofedHits: number;
  pages: number;
  markdownReads: number;
  llmsTxtReads: number;
  llmsFullTxtReads: number;
}

export interface AgentsReport {
  dateFrom: string;
  dateTo: string;
  agents: AgentReportEntry[];
  hasMore: boolean;
}

/** An entry of GET /v1/analytics/{projectId}/pages. */
export interface PageReportEntry {
  path: string;
  humanReaders: number;
  aiReaders: number;
  aiReadersByCategory: Record<string, number>;
  aiReferrals: number;
  agentSkew: number;
}

export interface PagesReport {
  dateFrom: string;
  dateTo: string;
  pages: PageReportEntry[];
  hasMore: boolean;
  referralSources: Array<{ source: string; referrals: number; visitors: number }>;
}

export interface AgentErrorsReport {
  dateFrom: string;
  dateTo: string;
  errors: Array<{ path: string; status: number; hits: number; visitors: number; agents: string[] }>;
  hasMore: boolean;
}
