import { DocwrightError } from '../core/errors.js';
import { runGit } from './run-git.js';

export type AdvanceResult = 'advanced' | 'moved';

const GIT_TIMEOUT_MS = 60_000;

/**
 * Moves branch `ref` from `from` to `to` with `git update-ref REF NEW OLD`: git changes the
 * ref only if it still points at `from` (under its ref lock), so a push that landed since
 * `from` was read is never overwritten — the caller gets 'moved' and merges again. The same
 * holds for `unmoved`: a ref that must still point at a commit, or nothing moves.
 *
 * A non-bare repository (or a linked worktree) may have the branch checked out. Moving a
 * checked-out branch alone would leave its files and index at the old commit, showing the
 * merge as uncommitted changes reversed; so, like `receive.denyCurrentBranch=updateInstead`,
 * the working tree is brought along, and only when it is clean: with uncommitted changes the
 * merge is refused (409 `base_checked_out_dirty`) before anything moves.
 */
export async function advanceBranch(
  repository: string,
  ref: string,
  from: string,
  to: string,
  reason: string,
  unmoved?: { ref: string; commit: string },
): Promise<AdvanceResult> {
  const worktree = await checkedOutAt(repository, ref);
  if (worktree !== null) await assertCleanCheckout(worktree, from, to);
  // `unmoved` (a merge's head) is verified in the same ref transaction: git locks both refs,
  // checks both values, then moves `ref`, so a push to either one in between is refused.
  const updated =
    unmoved === undefined
      ? await runGit(['update-ref', '-m', reason, ref, to, from], { cwd: repository, allowedExitCodes: [0, 128], timeoutMs: GIT_TIMEOUT_MS })
      : await runGit(['update-ref', '-m', reason, '--stdin', '-z'], {
          cwd: repository,
          allowedExitCodes: [0, 128],
          timeoutMs: GIT_TIMEOUT_MS,
          input: `verify ${unmoved.ref}\0${unmoved.commit}\0update ${ref}\0${to}\0${from}\0`,
        });
  if (updated.exitCode !== 0) {
    // Another writer moved the ref, or holds its lock right now: both mean "read again".
    if (/cannot lock ref|but expected|is at/i.test(updated.stderr)) return 'moved';
    throw new DocwrightError('git_failed', `git update-ref failed: ${updated.stderr.trim().slice(-2_000)}`, { status: 502 });
  }
  if (worktree !== null) {
    // Two-tree read-tree: moves the index and files from `from` to `to`, as a checkout would.
    const checkout = await runGit(['read-tree', '-m', '-u', from, to], { cwd: worktree, allowedExitCodes: [0, 128], timeoutMs: GIT_TIMEOUT_MS });
    if (checkout.exitCode !== 0) {
      // The dry run passed, so someone changed files in between: put the ref back (only if
      // it is still ours) rather than leave a branch whose checkout disagrees with it.
      await runGit(['update-ref', '-m', `${reason} (undone)`, ref, from, to], { cwd: repository, allowedExitCodes: [0, 128] });
      throw worktreeBlocked();
    }
  }
  return 'advanced';
}

const worktreeBlocked = (): DocwrightError =>
  new DocwrightError(
    'base_checked_out_dirty',
    'The base branch is checked out in a working tree with uncommitted changes (or files in the way of the merge); commit or stash them, then merge again.',
    { status: 409 },
  );

/** The working tree that has `ref` checked out, or null (bare repository, or another branch checked out). */
async function checkedOutAt(repository: string, ref: string): Promise<string | null> {
  const listed = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repository, timeoutMs: GIT_TIMEOUT_MS, maxOutputBytes: 1024 * 1024 });
  let path: string | null = null;
  for (const field of listed.stdout.split('\0')) {
    if (field.startsWith('worktree ')) path = field.slice('worktree '.length);
    else if (field === `branch ${ref}` && path !== null) return path;
    else if (field === '') path = null;
  }
  return null;
}

/** No staged or unstaged change to tracked files, and nothing a checkout to `to` would overwrite. */
async function assertCleanCheckout(worktree: string, from: string, to: string): Promise<void> {
  const status = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=all'], {
    cwd: worktree,
    timeoutMs: GIT_TIMEOUT_MS,
    maxOutputBytes: 64 * 1024,
  });
  if (status.stdout.length > 0) throw worktreeBlocked();
  // What `git merge` does first: files touched but unchanged must not read as changes.
  await runGit(['update-index', '-q', '--refresh'], { cwd: worktree, allowedExitCodes: [0, 1], timeoutMs: GIT_TIMEOUT_MS });
  const dryRun = await runGit(['read-tree', '-m', '-u', '-n', from, to], { cwd: worktree, allowedExitCodes: [0, 128], timeoutMs: GIT_TIMEOUT_MS });
  if (dryRun.exitCode !== 0) throw worktreeBlocked();
}
