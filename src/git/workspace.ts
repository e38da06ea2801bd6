import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { systemClock, type Clock } from '../core/clock.js';
import { DocwrightError } from '../core/errors.js';
import { PRIVATE_DIRECTORY_MODE } from '../core/private-files.js';
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

/** Where the job clones live: one directory per job under the data dir. */
export const workspacesDirectory = (dataDir: string): string => join(dataDir, 'workspaces');

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
  /**
   * What the caller knows of `branch` on the remote. `exists` (an earlier turn pushed it)
   * clones the branch directly, falling back to `baseRef` when it has gone; `unknown` asks
   * the remote while the base is cloned, and clones again only when the branch is there.
   */
  branchHint?: 'exists' | 'unknown';
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
  /** The commit `branch` had on the remote when it was cloned (`startCommit`), or null when it did not exist. */
  readonly branchAtStart: string | null;
  /** Stages everything and commits as the agent; the new commit id, or null when nothing changed. */
  commitAll(options: { message: string }): Promise<string | null>;
  /** Stages every change (untracked files included); the staged paths, sorted, both ends of a rename. */
  stageAll(): Promise<string[]>;
  /** Like `stageAll`, with the mode each path is staged with (`000000` for a deletion). */
  stageAllEntries(): Promise<StagedEntry[]>;
  /** Takes these paths out of the index again (back to HEAD); the working tree is untouched. */
  unstage(paths: readonly string[]): Promise<void>;
  /** Commits what `stageAll` staged, as the agent; the new commit id, or null when nothing was staged. */
  commitStaged(options: { message: string }): Promise<string | null>;
  /** Paths changed against HEAD, untracked files included, sorted. */
  changedFiles(): Promise<string[]>;
  /**
   * Moves `branch` on the remote to HEAD only if it is still at `expected` there (default:
   * where this workspace last saw it, `branchAtStart` or its own last push; null: the branch
   * must not exist). git's --force-with-lease, which the remote checks under its ref lock:
   * nothing this workspace has not seen is ever overwritten, and from the default the push
   * is a fast-forward. Refused: `git_push_rejected`. Returns the pushed commit.
   */
  push(options?: { expected?: string | null }): Promise<string>;
  /** The remote's `branch` now, fetched into this clone; null when the branch does not exist. */
  fetchBranchTip(): Promise<BranchTip | null>;
  /**
   * The commit `baseRef` names: HEAD as cloned for a new branch, else fetched (a
   * follow-up's clone holds only the job's branch); null when it cannot be had.
   */
  baseCommit(): Promise<string | null>;
  /** Diff from `fromRef` (default `startCommit`) to HEAD; null when `fromRef` cannot be had cheaply. */
  diff(fromRef?: string): Promise<UnifiedDiff | null>;
  headCommit(): Promise<string>;
  /** Deletes the working copy. */
  remove(): Promise<void>;
}

export interface BranchTip {
  commit: string;
  parents: string[];
  authorEmail: string;
}

export interface StagedEntry {
  path: string;
  /** Git's mode of the staged version: `100644` a file, `100755` executable, `120000` a link, `160000` a submodule. */
  mode: string;
}

const DEFAULT_TIMEOUT_MS = 300_000;
// Keeps each `git reset` argument list far below the system's limit.
const PATHS_PER_COMMAND = 500;

/** Clones the project repository for one job turn and puts HEAD on the job's branch. */
export async function prepareWorkspace(options: PrepareWorkspaceOptions): Promise<Workspace> {
  const remoteUrl = validateRemoteUrl(options.remoteUrl);
  const baseRef = validateRefName(options.baseRef, 'baseRef');
  const branch = validateRefName(options.branch, 'branch');
  const directory = resolve(options.directory);
  const auth = options.auth ?? null;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  await ensureEmptyDirectory(directory);
  const clone = (ref: string): Promise<void> => cloneInto({ remoteUrl, ref, directory, auth, timeoutMs });
  let continued: boolean;
  if (options.branchHint === 'exists') {
    continued = await clone(branch).then(
      () => true,
      (error: unknown) => {
        if (!isRefNotFound(error)) throw error;
        return false;
      },
    );
    if (!continued) await clone(baseRef);
  } else {
    // The branch query and the base clone are independent; run together, the query costs nothing.
    const [query, cloned] = await Promise.allSettled([remoteBranchExists(remoteUrl, branch, auth, { timeoutMs }), clone(baseRef)]);
    if (query.status === 'rejected') {
      if (cloned.status === 'fulfilled') await rm(directory, { recursive: true, force: true });
      throw query.reason;
    }
    if (cloned.status === 'rejected') throw cloned.reason;
    continued = query.value;
    if (continued) {
      // Rare: an earlier attempt of this turn pushed the branch before it was interrupted.
      await rm(directory, { recursive: true, force: true });
      await clone(branch);
    }
  }

  const git = (args: string[], extra: { allowedExitCodes?: number[]; env?: Record<string, string> } = {}): Promise<GitResult> =>
    runGit(args, { cwd: directory, auth, timeoutMs, ...extra });
  // HEAD stays on the cloned branch: pushes name the job's branch explicitly, so a local
  // `checkout -b` (a pass over the whole index) would buy nothing.
  const startCommit = await readHeadCommit(directory, git);

  return new GitWorkspace({ directory, remoteUrl, baseRef, branch, continued, startCommit, git, clock: options.clock ?? systemClock });
}

async function cloneInto(options: { remoteUrl: string; ref: string; directory: string; auth: GitAuth | null; timeoutMs: number }): Promise<void> {
  const { remoteUrl, ref, directory, auth, timeoutMs } = options;
  // Local paths are cloned with hard links, which is already cheap; git ignores --depth there.
  const shallow = !isLocalPath(remoteUrl) ? ['--depth', '1'] : [];
  // git would create the directory with the umask; made first, the clone is its owner's only.
  await mkdir(directory, { mode: PRIVATE_DIRECTORY_MODE }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  try {
    // core.symlinks=false checks a committed symbolic link out as a plain file holding its
    // target's path, so no link in the repository can lead the agent's tools or the docs
    // check out of the clone. Kept in the clone's config, it also makes `git add` stage an
    // edit of such a file with the link's mode, which the commit step refuses: the link is
    // never committed back as a changed regular file.
    const args = ['clone', '--quiet', '--no-tags', '--single-branch', '--config', 'core.symlinks=false', ...shallow, '--branch', ref];
    await runGit([...args, '--', remoteUrl, directory], {
      cwd: dirname(directory),
      auth,
      timeoutMs,
    });
  } catch (error) {
    // git only empties a directory it did not create itself; a failed clone leaves nothing.
    await rm(directory, { recursive: true, force: true });
    if (isRefNotFound(error)) {
      throw new DocwrightError('git_ref_not_found', `The ref ${JSON.stringify(ref)} does not exist in ${describeRemote(remoteUrl)}.`, {
        status: 400,
        cause: error,
      });
    }
    throw error;
  }
}

function isRefNotFound(error: unknown): boolean {
  if (error instanceof DocwrightError && error.code === 'git_ref_not_found') return true;
  return error instanceof GitCommandError && /Remote branch .* not found/.test(error.stderr);
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * HEAD's commit id. After a clone or a commit, HEAD names a branch whose ref git has just
 * written as a loose file, so reading two small files saves a git process (several ms of
 * fork from a large server); anything unusual falls back to `rev-parse`.
 */
async function readHeadCommit(directory: string, git: GitRunner): Promise<string> {
  try {
    const head = (await readFile(join(directory, '.git', 'HEAD'), 'utf8')).trim();
    if (OBJECT_ID.test(head)) return head;
    const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(head)?.[1];
    if (ref !== undefined && !ref.split('/').includes('..')) {
      const value = (await readFile(join(directory, '.git', ref), 'utf8')).trim();
      if (OBJECT_ID.test(value)) return value;
    }
  } catch {
    // A packed ref or an unusual layout: ask git.
  }
  return (await git(['rev-parse', '--verify', 'HEAD'])).stdout.trim();
}

type GitRunner = (args: string[], extra?: { allowedExitCodes?: number[]; env?: Record<string, string> }) => Promise<GitResult>;

class GitWorkspace implements Workspace {
  readonly directory: string;
  readonly remoteUrl: string;
  readonly baseRef: string;
  readonly branch: string;
  readonly continued: boolean;
  readonly startCommit: string;
  readonly branchAtStart: string | null;
  private readonly git: GitRunner;
  private readonly clock: Clock;
  /** What the remote's branch was when this workspace last saw it. */
  private remoteBranch: string | null;

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
    this.branchAtStart = fields.continued ? fields.startCommit : null;
    this.remoteBranch = this.branchAtStart;
    this.git = fields.git;
    this.clock = fields.clock;
  }

  async commitAll({ message }: { message: string }): Promise<string | null> {
    const staged = await this.stageAll();
    return staged.length === 0 ? null : this.commitStaged({ message });
  }

  async stageAll(): Promise<string[]> {
    return (await this.stageAllEntries()).map((entry) => entry.path);
  }

  async stageAllEntries(): Promise<StagedEntry[]> {
    await this.git(['add', '--all', '--', '.']);
    // Index against HEAD only: no second pass over the working tree, unlike `status`.
    const result = await this.git(['diff', '--cached', '--raw', '-z', '--no-renames', '--no-ext-diff', '--no-abbrev']);
    // Each entry is ":oldmode newmode oldid newid status" NUL path NUL.
    const fields = result.stdout.split('\0');
    const entries: StagedEntry[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const mode = fields[index]!.split(' ')[1];
      const path = fields[index + 1]!;
      if (mode !== undefined && path.length > 0) entries.push({ path, mode });
    }
    return entries.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  }

  async unstage(paths: readonly string[]): Promise<void> {
    for (let start = 0; start < paths.length; start += PATHS_PER_COMMAND) {
      // Literal pathspecs: a file named `*` or `:(glob)x` must mean only itself.
      await this.git(['reset', '--quiet', 'HEAD', '--', ...paths.slice(start, start + PATHS_PER_COMMAND)], { env: { GIT_LITERAL_PATHSPECS: '1' } });
    }
  }

  async commitStaged({ message }: { message: string }): Promise<string | null> {
    const text = message.trim().length > 0 ? message : 'Update documentation';
    const date = `@${Math.floor(this.clock.now() / 1000)} +0000`;
    const result = await this.git(['commit', '--quiet', '--no-verify', '--cleanup=whitespace', `--message=${text}`], {
      // Exit 1 is how commit says "nothing to commit"; anything else stays an error.
      allowedExitCodes: [0, 1],
      env: {
        GIT_AUTHOR_NAME: AGENT_NAME,
        GIT_AUTHOR_EMAIL: AGENT_EMAIL,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: AGENT_NAME,
        GIT_COMMITTER_EMAIL: AGENT_EMAIL,
        GIT_COMMITTER_DATE: date,
      },
    });
    if (result.exitCode === 1) {
      const nothingStaged = (await this.git(['diff', '--cached', '--quiet', '--no-ext-diff'], { allowedExitCodes: [0, 1] })).exitCode === 0;
      if (nothingStaged) return null;
      throw new GitCommandError(`git commit failed (exit 1): ${(result.stderr || result.stdout).trim().slice(-4000)}`, result.stderr, 1);
    }
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

  async push(options: { expected?: string | null } = {}): Promise<string> {
    const head = await this.headCommit();
    const expected = options.expected === undefined ? this.remoteBranch : options.expected;
    const ref = `refs/heads/${this.branch}`;
    try {
      // An empty expected value means "must not exist yet".
      await this.git(['push', '--quiet', '--no-verify', `--force-with-lease=${ref}:${expected ?? ''}`, 'origin', `HEAD:${ref}`]);
    } catch (error) {
      if (error instanceof GitCommandError && /\[(?:remote )?rejected\]|non-fast-forward|fetch first|stale info/.test(error.stderr)) {
        throw new DocwrightError(
          'git_push_rejected',
          `The remote refused the push to ${this.branch}; it was probably changed by someone else meanwhile. ${error.stderr}`,
          { status: 409, cause: error },
        );
      }
      throw error;
    }
    this.remoteBranch = head;
    return head;
  }

  async fetchBranchTip(): Promise<BranchTip | null> {
    const commit = await this.fetchCommit(`refs/heads/${this.branch}`);
    if (commit === null) return null;
    // The raw object names the parents even where a shallow clone's graft hides them.
    const raw = (await this.git(['cat-file', 'commit', commit])).stdout;
    const header = raw.slice(0, raw.indexOf('\n\n'));
    const parents = [...header.matchAll(/^parent ([0-9a-f]+)$/gm)].map((match) => match[1]!);
    const authorEmail = /^author .*<([^>]*)> \d+ [+-]\d{4}$/m.exec(header)?.[1] ?? '';
    return { commit, parents, authorEmail };
  }

  async baseCommit(): Promise<string | null> {
    if (!this.continued) return this.startCommit;
    return this.commitOf(this.baseRef);
  }

  async diff(fromRef: string = this.startCommit): Promise<UnifiedDiff | null> {
    const from = await this.commitOf(fromRef);
    if (from === null) return null;
    return readDiff(this.directory, [from, 'HEAD']);
  }

  async headCommit(): Promise<string> {
    return readHeadCommit(this.directory, this.git);
  }

  async remove(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }

  private async commitOf(ref: string): Promise<string | null> {
    return (await tryResolveCommit(this.directory, ref, 'fromRef')) ?? (await this.fetchCommit(ref));
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
  await mkdir(dirname(directory), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
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
