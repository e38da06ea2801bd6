import { mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { systemClock, type Clock } from '../core/clock.js';
import { DocwrightError } from '../core/errors.js';
import { readDiff, tryResolveCommit, type UnifiedDiff } from './diff-between.js';
import type { GitAuth } from './git-auth.js';
import { validateRefName } from './ref-name.js';
import { isLocalPath, validateRemoteUrl } from './remote-url.js';
import { remoteBranchExists } from './remote-branch.js';
import { GitCommandError, runGit, type GitResult } from './run-git.js';

export { deriveCommitMessage, type CommitMessageInput } from './commit-message.js';
export { diffBetween, type UnifiedDiff, type DiffOptions } from './diff-between.js';
export { remoteBranchExists, remoteBranchCommit } from './remote-branch.js';
export { isLocalPath } from './remote-url.js';

export const AGENT_NAME = 'Docwright Agent';
export const AGENT_EMAIL = 'agent@docwright.invalid';

export interface PrepareWorkspaceOptions {
  /** A URL or local path git can clone; never with credentials in it. */
  remoteUrl: string;
  /** Branch or tag a new branch starts from. */
  baseRef: string;
  /** The job's branch, e.g. `docwright/<jobId>`; continued when it already exists on the remote. */
  branch: string;
  /** Where to clone; must not exist yet or be empty. */
  directory: string;
  auth?: GitAuth | null;
  /** Per git command; clones of large repositories need more than the default 5 minutes. */
  timeoutMs?: number;
  /** Dates of the commits this workspace makes. */
  clock?: Clock;
}

export interface Workspace {
  readonly directory: string;
  readonly remoteUrl: string;
  readonly baseRef: string;
  readonly branch: string;
  /** True when `branch` already existed on the remote (a follow-up turn). */
  readonly continued: boolean;
  /** HEAD right after preparation: what this turn's changes are measured against. */
  readonly startCommit: string;
  /** Stages everything and commits as the agent; the new commit id, or null when nothing changed. */
  commitAll(options: { message: string }): Promise<string | null>;
  /** Paths changed against HEAD, untracked files included, sorted. */
  changedFiles(): Promise<string[]>;
  /** Fast-forwards `branch` on the remote to HEAD; never forces. Returns the pushed commit. */
  push(): Promise<string>;
  /** Diff from `fromRef` (default `startCommit`) to HEAD; null when `fromRef` cannot be had cheaply. */
  diff(fromRef?: string): Promise<UnifiedDiff | null>;
  headCommit(): Promise<string>;
  /** Deletes the working copy. */
  remove(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 300_000;

/** Clones the project repository for one job turn and puts HEAD on the job's branch. */
export async function prepareWorkspace(options: PrepareWorkspaceOptions): Promise<Workspace> {
  const remoteUrl = validateRemoteUrl(options.remoteUrl);
  const baseRef = validateRefName(options.baseRef, 'baseRef');
  const branch = validateRefName(options.branch, 'branch');
  const directory = resolve(options.directory);
  const auth = options.auth ?? null;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  await ensureEmptyDirectory(directory);
  const continued = await remoteBranchExists(remoteUrl, branch, auth, { timeoutMs });
  const cloneRef = continued ? branch : baseRef;

  // Local paths are cloned with hard links, which is already cheap; git ignores --depth there.
  const shallow = !isLocalPath(remoteUrl) ? ['--depth', '1'] : [];
  try {
    await runGit(
      ['clone', '--quiet', '--no-tags', '--single-branch', ...shallow, '--branch', cloneRef, '--', remoteUrl, directory],
      { cwd: dirname(directory), auth, timeoutMs },
    );
  } catch (error) {
    if (error instanceof GitCommandError && /Remote branch .* not found/.test(error.stderr)) {
      throw new DocwrightError('git_ref_not_found', `The ref ${JSON.stringify(cloneRef)} does not exist in ${describeRemote(remoteUrl)}.`, {
        status: 400,
        cause: error,
      });
    }
    throw error;
  }

  const git = (args: string[], extra: { allowedExitCodes?: number[]; env?: Record<string, string> } = {}): Promise<GitResult> =>
    runGit(args, { cwd: directory, auth, timeoutMs, ...extra });
  if (!continued) await git(['checkout', '--quiet', '-b', branch]);
  const startCommit = (await git(['rev-parse', '--verify', 'HEAD'])).stdout.trim();

  return new GitWorkspace({ directory, remoteUrl, baseRef, branch, continued, startCommit, git, clock: options.clock ?? systemClock });
}

type GitRunner = (args: string[], extra?: { allowedExitCodes?: number[]; env?: Record<string, string> }) => Promise<GitResult>;

class GitWorkspace implements Workspace {
  readonly directory: string;
  readonly remoteUrl: string;
  readonly baseRef: string;
  readonly branch: string;
  readonly continued: boolean;
  readonly startCommit: string;
  private readonly git: GitRunner;
  private readonly clock: Clock;

  constructor(fields: {
    directory: string;
    remoteUrl: string;
    baseRef: string;
    branch: string;
    continued: boolean;
    startCommit: string;
    git: GitRunner;
    clock: Clock;
  }) {
    this.directory = fields.directory;
    this.remoteUrl = fields.remoteUrl;
    this.baseRef = fields.baseRef;
    this.branch = fields.branch;
    this.continued = fields.continued;
    this.startCommit = fields.startCommit;
    this.git = fields.git;
    this.clock = fields.clock;
  }

  async commitAll({ message }: { message: string }): Promise<string | null> {
    await this.git(['add', '--all', '--', '.']);
    const staged = await this.git(['diff', '--cached', '--quiet', '--no-ext-diff'], { allowedExitCodes: [0, 1] });
    if (staged.exitCode === 0) return null;
    const text = message.trim().length > 0 ? message : 'Update documentation';
    const date = `@${Math.floor(this.clock.now() / 1000)} +0000`;
    await this.git(['commit', '--quiet', '--no-verify', '--cleanup=whitespace', `--message=${text}`], {
      env: {
        GIT_AUTHOR_NAME: AGENT_NAME,
        GIT_AUTHOR_EMAIL: AGENT_EMAIL,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: AGENT_NAME,
        GIT_COMMITTER_EMAIL: AGENT_EMAIL,
        GIT_COMMITTER_DATE: date,
      },
    });
    return this.headCommit();
  }

  async changedFiles(): Promise<string[]> {
    const result = await this.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames']);
    const paths = new Set<string>();
    // Each entry is "XY path" terminated by NUL; -z keeps unusual file names unquoted.
    for (const entry of result.stdout.split('\0')) {
      if (entry.length > 3) paths.add(entry.slice(3));
    }
    return [...paths].sort();
  }

  async push(): Promise<string> {
    const head = await this.headCommit();
    try {
      // No --force and no "+" in the refspec: the remote only accepts a fast-forward.
      await this.git(['push', '--quiet', '--no-verify', 'origin', `HEAD:refs/heads/${this.branch}`]);
    } catch (error) {
      if (error instanceof GitCommandError && /\[(?:remote )?rejected\]|non-fast-forward|fetch first/.test(error.stderr)) {
        throw new DocwrightError(
          'git_push_rejected',
          `The remote refused the push to ${this.branch}; it was probably changed by someone else meanwhile. ${error.stderr}`,
          { status: 409, cause: error },
        );
      }
      throw error;
    }
    return head;
  }

  async diff(fromRef: string = this.startCommit): Promise<UnifiedDiff | null> {
    const from = (await tryResolveCommit(this.directory, fromRef, 'fromRef')) ?? (await this.fetchCommit(fromRef));
    if (from === null) return null;
    return readDiff(this.directory, [from, 'HEAD']);
  }

  async headCommit(): Promise<string> {
    return (await this.git(['rev-parse', '--verify', 'HEAD'])).stdout.trim();
  }

  async remove(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }

  /** A ref this single-branch clone lacks (typically the base of a follow-up), fetched at depth 1. */
  private async fetchCommit(ref: string): Promise<string | null> {
    const shallow = (await this.git(['rev-parse', '--is-shallow-repository'])).stdout.trim() === 'true';
    // Deepening a complete clone with --depth would make it shallow; only shallow clones get it.
    const depth = shallow ? ['--depth', '1'] : [];
    try {
      await this.git(['fetch', '--quiet', '--no-tags', ...depth, 'origin', ref]);
    } catch {
      return null;
    }
    return tryResolveCommit(this.directory, 'FETCH_HEAD', 'fromRef');
  }
}

function describeRemote(remoteUrl: string): string {
  return isLocalPath(remoteUrl) ? `the repository at ${remoteUrl}` : `the repository ${remoteUrl}`;
}

async function ensureEmptyDirectory(directory: string): Promise<void> {
  await mkdir(dirname(directory), { recursive: true });
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (entries.length > 0) {
    throw new DocwrightError('workspace_not_empty', `The workspace directory ${directory} already exists and is not empty.`, { status: 409 });
  }
}
