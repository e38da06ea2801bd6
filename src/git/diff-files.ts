import { runGit } from './run-git.js';

export type DiffFileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed';
export const DIFF_FILE_STATUSES: readonly DiffFileStatus[] = ['added', 'modified', 'deleted', 'renamed', 'copied', 'type_changed'];

export interface DiffFile {
  path: string;
  /** The old path of a renamed or copied file. */
  previousPath?: string;
  status: DiffFileStatus;
  /** Line counts; 0 and 0 for a binary file. */
  additions: number;
  deletions: number;
  binary: boolean;
}

export interface DiffFiles {
  files: DiffFile[];
  /** More files changed than `maxFiles`; the list holds the first ones in git's order. */
  truncated: boolean;
}

const STATUS_LETTERS: Readonly<Record<string, DiffFileStatus>> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type_changed' };

/** The same switches as readDiff: no external diff or textconv program runs. */
const DIFF_ARGS = ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--find-renames', '-z'];

/**
 * The files `revisions` changed, with their status and line counts, from `git diff
 * --name-status` and `--numstat` (NUL-separated, so any path is read exactly).
 */
export async function diffFiles(cwd: string, revisions: readonly string[], options: { maxFiles: number; timeoutMs?: number }): Promise<DiffFiles> {
  const run = (format: string) =>
    runGit([...DIFF_ARGS, format, ...revisions, '--'], { cwd, timeoutMs: options.timeoutMs ?? 60_000, maxOutputBytes: 8 * 1024 * 1024 });
  const [names, counts] = await Promise.all([run('--name-status'), run('--numstat')]);
  const lineCounts = parseNumstat(counts.stdout);
  const files: DiffFile[] = [];
  const fields = names.stdout.split('\0');
  let truncated = names.truncated;
  for (let index = 0; index < fields.length - 1;) {
    const letter = fields[index]!.charAt(0);
    const status = STATUS_LETTERS[letter] ?? 'modified';
    const paired = letter === 'R' || letter === 'C';
    const previousPath = paired ? fields[index + 1] : undefined;
    const path = fields[index + (paired ? 2 : 1)];
    index += paired ? 3 : 2;
    if (path === undefined) break;
    if (files.length === options.maxFiles) {
      truncated = true;
      break;
    }
    const count = lineCounts.get(path) ?? { additions: 0, deletions: 0, binary: false };
    files.push({ path, ...(previousPath === undefined ? {} : { previousPath }), status, ...count });
  }
  return { files, truncated };
}

/** `added TAB deleted TAB path NUL`, or for a rename `added TAB deleted TAB NUL old NUL new NUL`; binary counts are `-`. */
function parseNumstat(text: string): Map<string, { additions: number; deletions: number; binary: boolean }> {
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  const fields = text.split('\0');
  for (let index = 0; index < fields.length - 1;) {
    // Split at the first two tabs only: a path may hold tabs itself.
    const field = fields[index]!;
    const first = field.indexOf('\t');
    const second = field.indexOf('\t', first + 1);
    const added = field.slice(0, first);
    const deleted = field.slice(first + 1, second);
    const inline = second < 0 ? '' : field.slice(second + 1);
    let path = inline;
    index += 1;
    if (inline === '') {
      path = fields[index + 1] ?? '';
      index += 2;
    }
    const binary = added === '-' && deleted === '-';
    counts.set(path, { additions: binary ? 0 : Number(added) || 0, deletions: binary ? 0 : Number(deleted) || 0, binary });
  }
  return counts;
}
