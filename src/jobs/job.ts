import type { JobsTable, JobTurnsTable } from '../db/schema.js';
import { usageFromColumns, type Usage } from './job-usage.js';

export type JobStatus = 'active' | 'completed' | 'archived' | 'failed';
export const JOB_STATUSES: readonly JobStatus[] = ['active', 'completed', 'archived', 'failed'];

/** The state of a local-forge pull request, as the job shows it. */
export type PullRequestStatus = 'open' | 'merged' | 'closed';
export const PULL_REQUEST_STATUSES: readonly PullRequestStatus[] = ['open', 'merged', 'closed'];

export type TurnStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** The job object of the API: interface.md's fields, plus `updatedAt` and `error`. */
export interface Job {
  id: string;
  status: JobStatus;
  source: { repository: string; ref: string };
  model: string;
  prLink: string | null;
  /** The local forge's pull request state; null for GitHub and GitLab, and before a pull request exists. */
  prStatus: PullRequestStatus | null;
  createdAt: string;
  archivedAt: string | null;
  updatedAt: string;
  error: { code: string; message: string } | null;
  /** Problems the last turn introduced that the final docs check still found (0: none). */
  unresolvedProblems: number;
  /** The sums of the job's turns so far. */
  usage: Usage;
}

export interface JobProblem {
  path: string;
  line?: number;
  message: string;
  kind: string;
  /** True when this turn's changes introduced it, false when the job's base ref already had it. */
  new?: boolean;
}

export interface ToolStepSummary {
  toolName: string;
  argumentSummary: string;
  ok: boolean;
  error?: string;
}

/** One prompt and what the agent did with it. */
export interface JobTurn {
  sequence: number;
  prompt: string;
  status: TurnStatus;
  finalMessage: string | null;
  steps: ToolStepSummary[];
  filesChanged: string[];
  commit: string | null;
  problems: JobProblem[];
  /** Changes the write policy kept out of the commit. */
  refusedFiles: Array<{ path: string; reason: string }>;
  warnings: string[];
  error: { code: string; message: string } | null;
  usage: Usage;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function jobFromRow(row: JobsTable): Job {
  return {
    id: row.id,
    status: row.status as JobStatus,
    source: { repository: row.repository, ref: row.ref },
    model: row.model,
    prLink: row.pr_link,
    prStatus: row.pr_status as PullRequestStatus | null,
    createdAt: new Date(row.created_at).toISOString(),
    archivedAt: iso(row.archived_at),
    updatedAt: new Date(row.updated_at).toISOString(),
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    unresolvedProblems: Number(row.unresolved_problems),
    usage: usageFromColumns(row),
  };
}

export function turnFromRow(row: JobTurnsTable): JobTurn {
  return {
    sequence: row.sequence,
    prompt: row.prompt,
    status: row.status as TurnStatus,
    finalMessage: row.final_message,
    steps: JSON.parse(row.steps) as ToolStepSummary[],
    filesChanged: JSON.parse(row.files_changed) as string[],
    commit: row.commit_sha,
    problems: JSON.parse(row.problems) as JobProblem[],
    refusedFiles: JSON.parse(row.refused_files) as JobTurn['refusedFiles'],
    warnings: JSON.parse(row.warnings) as string[],
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    usage: usageFromColumns(row),
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}
