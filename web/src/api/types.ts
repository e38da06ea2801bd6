// The JSON shapes of the server's answers the dashboard reads. Where the OpenAPI document
// describes a shape, the type is the SDK's, generated from that document (packages/sdk,
// `npm run sdk:generate`), so the dashboard cannot drift from the server; a type import
// only, nothing of the SDK is bundled. The rest are the dashboard's own (docs/dashboard.md).
import type { components, operations } from '../../../packages/sdk/src/schema';

type Schemas = components['schemas'];

export type Role = 'admin' | 'member';

export type User = Schemas['User'];
/** The signed-in user as the session answers it (no createdAt). */
export type SessionUser = Schemas['SessionUser'];

export type Session = Schemas['SessionState'];

export type SignedIn = Schemas['SignedIn'];

/** An admin's reset of another user's password: the temporary password, shown once. */
export type PasswordReset = Schemas['PasswordReset'];

export type ForgeKind = 'local' | 'github' | 'gitlab';

export type ProjectSettings = Schemas['Project']['settings'];

export type Project = Schemas['Project'];

export type KeyScope = 'admin' | 'ingest';

export type ApiKeyInfo = Schemas['ApiKeyInfo'];

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

export type Job = Schemas['AgentJob'];

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

/** The optional pull request controls of a new job: the create body without the prompt. */
export type JobControls = Omit<NonNullable<operations['createAgentJob']['requestBody']>['content']['application/json'], 'prompt'>;

export type Turn = Schemas['AgentJobTurn'];

export type PullRequestFile = Schemas['LocalPullRequest']['files'][number];

export type PullRequest = Schemas['LocalPullRequest'];

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

export type TrafficReport = Schemas['Traffic'];

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
export type AgentReportEntry = Schemas['AgentReportEntry'];

export type AgentsReport = Schemas['AgentsReport'];

/** An entry of GET /v1/analytics/{projectId}/pages. */
export type PageReportEntry = Schemas['PageReportEntry'];

export type PagesReport = Schemas['PagesReport'];

export type AgentErrorsReport = Schemas['AgentErrorsReport'];
