import type { Executor } from '../../db/transaction.js';
import type { GitAuth } from '../git-auth.js';

/**
 * What a job needs from wherever a project's docs repository lives: where to clone and push
 * (with which credential), and a pull request to open or update. Every forge implements it;
 * the orchestrator, never the model, calls it.
 */
export type ForgeKind = 'local' | 'github' | 'gitlab';

/** Already decrypted by the caller; forges never see ciphertext or the store. */
export type ForgeCredentials = ForgeTokenCredentials | ForgeAppCredentials;

export interface ForgeTokenCredentials {
  token: string;
}

/** A GitHub App installation: the forge mints short-lived installation tokens from it. */
export interface ForgeAppCredentials {
  appId: string;
  privateKey: string;
  installationId: string;
}

export interface ForgeProject {
  id: string;
  /** A local path for the local forge, else the forge's web URL of the repository. */
  repository: string;
  /** The base branch pull requests target. */
  ref: string;
  credentials: ForgeCredentials | null;
}

export interface ForgeRemote {
  url: string;
  auth: GitAuth | null;
}

/**
 * What a forge does with a pull request it opens (a job's create options). Applied when the
 * pull request is created, and when an open one is adopted that the job has not recorded
 * (a crashed attempt's), never on a follow-up's update: a label someone removed stays removed.
 */
export interface PullRequestControls {
  /** GitHub: a draft pull request; GitLab: the `Draft: ` title prefix. */
  draft?: boolean;
  /** GitHub logins or `org/team`; GitLab usernames. */
  reviewers?: string[];
  labels?: string[];
  /** GitHub auto-merge (GraphQL), GitLab auto-merge / merge when the pipeline succeeds. */
  autoMerge?: boolean;
  /** With autoMerge; unset = the forge's default. */
  mergeMethod?: MergeMethod;
}

export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface PullRequestRequest {
  base: string;
  head: string;
  title: string;
  body: string;
  controls?: PullRequestControls;
  /**
   * The pull request the job has recorded (null: none yet). An open one adopted under
   * another number, which an attempt that died before recording it opened, gets `controls`.
   */
  recordedNumber?: number | null;
}

export interface PullRequestResult {
  number: number;
  url: string;
  /** False when an open pull request for `head` already existed and was updated instead. */
  created: boolean;
  /** The state Docwright keeps for it: only the local forge's pull requests have one (the job's `prStatus`). */
  status?: 'open';
  /**
   * Controls the forge refused (a reviewer who is not a collaborator, a label it would not
   * add): the pull request stands, so they do not fail the turn; the `pull_request` event shows them.
   */
  warnings?: string[];
}

/**
 * Refuses a write of a job's run once its lease has passed to another worker, by throwing
 * `lease_lost` (src/queue/lease-fence.ts). Given a transaction, the check holds until that
 * transaction ends; without one it is a check right before a write elsewhere (a git push,
 * a forge API call), which is as close as a remote that knows nothing of leases allows.
 */
export type WriteFence = (executor?: Executor) => Promise<void>;

export interface Forge {
  readonly kind: ForgeKind;
  remote(project: ForgeProject): Promise<ForgeRemote>;
  /**
   * Idempotent per `head`: the forge is asked for an open pull request from `head` first and
   * that one is adopted (updated), so one branch has one open pull request however often
   * this runs, crashes included. `fence` is called before anything is created or changed.
   */
  openOrUpdatePullRequest(project: ForgeProject, pr: PullRequestRequest, fence?: WriteFence): Promise<PullRequestResult>;
}

/** The result with the controls' warnings, if there are any. */
export function withWarnings(result: PullRequestResult, warnings: string[]): PullRequestResult {
  return warnings.length > 0 ? { ...result, warnings } : result;
}

export function isAppCredentials(credentials: ForgeCredentials): credentials is ForgeAppCredentials {
  return 'appId' in credentials;
}
