import { DocwrightError } from '../core/errors.js';
import { refNameProblem } from './ref-name.js';
import { runGit } from './run-git.js';

export interface UnifiedDiff {
  /** `git diff` output, cut at the byte limit when `truncated`. */
  text: string;
  truncated: boolean;
}

export interface DiffOptions {
  /** Default 1 MiB: enough for a review page, small enough to hold in memory per request. */
  maxBytes?: number;
  timeoutMs?: number;
}

const DEFAULT_MAX_DIFF_BYTES = 1024 * 1024;

/**
 * The pull-request view of a branch: what `head` changed since it left `base`
 * (`base...head`, like GitHub). Works in bare and non-bare repositories alike, because it
 * only reads objects and never the working tree.
 */
export async function diffBetween(repositoryPath: string, base: string, head: string, options: DiffOptions = {}): Promise<UnifiedDiff> {
  const baseCommit = await resolveCommit(repositoryPath, base, 'base');
  const headCommit = await resolveCommit(repositoryPath, head, 'head');
  return readDiff(repositoryPath, [`${baseCommit}...${headCommit}`], options);
}

/** Runs `git diff` with every extension point off, so repository content cannot run commands. */
export async function readDiff(cwd: string, revisions: readonly string[], options: DiffOptions = {}): Promise<UnifiedDiff> {
  const result = await runGit(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--find-renames', ...revisions, '--'], {
    cwd,
    maxOutputBytes: options.maxBytes ?? DEFAULT_MAX_DIFF_BYTES,
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  return { text: result.stdout, truncated: result.truncated };
}

/** A commit id for a branch, tag or commit name; `git_ref_not_found` when there is none. */
export async function resolveCommit(cwd: string, ref: string, field: string): Promise<string> {
  const commit = await tryResolveCommit(cwd, ref, field);
  if (commit === null) {
    throw new DocwrightError('git_ref_not_found', `The ${field} ref ${JSON.stringify(ref)} does not exist in the repository.`, { status: 404 });
  }
  return commit;
}

export async function tryResolveCommit(cwd: string, ref: string, field: string): Promise<string | null> {
  assertRevision(ref, field);
  const result = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd, allowedExitCodes: [0, 1, 128] });
  const commit = result.stdout.trim();
  return result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(commit) ? commit : null;
}

/** A revision must be a plain ref name or a commit id; never an option or a range. */
function assertRevision(ref: string, field: string): void {
  if (/^[0-9a-f]{4,64}$/i.test(ref)) return;
  const problem = refNameProblem(ref);
  if (problem !== null) {
    throw new DocwrightError('validation_failed', `Invalid git ref ${JSON.stringify(ref)} for ${field}: ${problem}.`, {
      status: 400,
      errors: [{ path: field, message: problem }],
    });
  }
}
