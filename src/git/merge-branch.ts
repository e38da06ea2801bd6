import { DocwrightError } from '../core/errors.js';
import { refNameProblem } from './ref-name.js';
import { runGit } from './run-git.js';

/** Who the merge commit names; its dates come from the caller's clock. */
export interface MergeIdentity {
  name: string;
  email: string;
  /** Milliseconds since the epoch. */
  at: number;
}

export type MergePlan =
  /** A merge commit exists (unreachable until `advanceBranch` moves the base to it). */
  | { kind: 'merge'; mergeCommit: string; baseCommit: string; headCommit: string }
  /** The base already contains the head (merged by hand, or a merge whose record was lost). */
  | { kind: 'already_merged'; baseCommit: string; headCommit: string }
  /** Git could not merge the two without help; nothing was changed. */
  | { kind: 'conflict'; files: string[]; baseCommit: string; headCommit: string };

/** At most this many conflicting paths are reported: the answer stays small. */
export const MAX_CONFLICT_FILES = 200;

const GIT_TIMEOUT_MS = 60_000;

/** `refs/heads/NAME` for a branch name that cannot be read as an option or a range. */
export function branchRef(name: string, field: string): string {
  const problem = refNameProblem(name);
  if (problem !== null) throw new DocwrightError('validation_failed', `Invalid branch name ${JSON.stringify(name)} for ${field}: ${problem}.`, { status: 400 });
  return `refs/heads/${name}`;
}

export async function branchCommit(repository: string, ref: string): Promise<string | null> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repository, allowedExitCodes: [0, 1, 128] });
  const commit = result.stdout.trim();
  return result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(commit) ? commit : null;
}

const branchMissing = (name: string, field: string): DocwrightError =>
  new DocwrightError('branch_missing', `The ${field} branch ${JSON.stringify(name)} no longer exists in the repository.`, { status: 409 });

/**
 * Computes the merge of `head` into `base` without touching any ref, the index or a
 * working tree: `git merge-tree --write-tree` (git 2.38 or later) merges in the object
 * database only, and `git commit-tree` writes the merge commit. Until a ref points at
 * them these objects are unreachable, and `git gc` removes them in time, so a conflict or
 * a refused update leaves the repository as it was. The merge always gets a merge commit
 * (never a fast-forward): the base's history shows which pull request brought what, and
 * the first parent is the base as it was.
 */
export async function planMerge(repository: string, base: string, head: string, message: string, identity: MergeIdentity): Promise<MergePlan> {
  const baseRef = branchRef(base, 'base');
  const headRef = branchRef(head, 'head');
  const [baseCommit, headCommit] = await Promise.all([branchCommit(repository, baseRef), branchCommit(repository, headRef)]);
  if (baseCommit === null) throw branchMissing(base, 'base');
  if (headCommit === null) throw branchMissing(head, 'head');
  const contained = await runGit(['merge-base', '--is-ancestor', headCommit, baseCommit], { cwd: repository, allowedExitCodes: [0, 1] });
  if (contained.exitCode === 0) return { kind: 'already_merged', baseCommit, headCommit };

  // -z: paths are NUL-terminated, whatever characters they hold. Exit 1 means conflicts.
  const merged = await runGit(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', baseCommit, headCommit], {
    cwd: repository,
    allowedExitCodes: [0, 1],
    timeoutMs: GIT_TIMEOUT_MS,
    maxOutputBytes: 4 * 1024 * 1024,
  });
  const [tree = '', ...paths] = merged.stdout.split('\0');
  if (!/^[0-9a-f]{40,64}$/.test(tree)) throw new DocwrightError('git_failed', 'git merge-tree gave no tree.', { status: 502 });
  if (merged.exitCode === 1) {
    const files = [...new Set(paths.filter((path) => path.length > 0))].slice(0, MAX_CONFLICT_FILES);
    return { kind: 'conflict', files, baseCommit, headCommit };
  }

  const date = `@${Math.floor(identity.at / 1000)} +0000`;
  const committed = await runGit(['commit-tree', tree, '-p', baseCommit, '-p', headCommit, '-m', message], {
    cwd: repository,
    timeoutMs: GIT_TIMEOUT_MS,
    env: {
      GIT_AUTHOR_NAME: identity.name,
      GIT_AUTHOR_EMAIL: identity.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: identity.name,
      GIT_COMMITTER_EMAIL: identity.email,
      GIT_COMMITTER_DATE: date,
    },
  });
  const mergeCommit = committed.stdout.trim();
  if (!/^[0-9a-f]{40,64}$/.test(mergeCommit)) throw new DocwrightError('git_failed', 'git commit-tree gave no commit.', { status: 502 });
  return { kind: 'merge', mergeCommit, baseCommit, headCommit };
}
