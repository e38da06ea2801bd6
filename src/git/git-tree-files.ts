import { DocwrightError } from '../core/errors.js';
import { runGit } from './run-git.js';
import { GitCatFile } from './git-cat-file.js';

/** What reading one file of a commit gave (the same shape as a docs-site SiteSource's). */
export type TreeFile = { status: 'read'; bytes: Uint8Array } | { status: 'too-large'; size: number } | { status: 'missing' };

interface TreeEntry {
  object: string;
  size: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
// A listing of 100,000 paths is a few MB; anything near this is not a docs repository.
const MAX_LISTING_BYTES = 256 * 1024 * 1024;
const OBJECT_ID = /^[0-9a-f]{40,64}$/;

/**
 * Paths whose entry differs between two commits of `repository` (added, deleted, changed
 * content or mode), both ends of a rename; what the docs check re-reads when a follow-up's
 * branch is checked against its base.
 */
export async function changedBetween(repository: string, from: string, to: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<string[]> {
  for (const commit of [from, to]) if (!OBJECT_ID.test(commit)) throw new Error(`changedBetween needs full commit ids, got ${JSON.stringify(commit)}.`);
  if (from === to) return [];
  const result = await runGit(['diff-tree', '-r', '-z', '--name-only', '--no-renames', '--no-ext-diff', from, to], {
    cwd: repository,
    timeoutMs,
    maxOutputBytes: MAX_LISTING_BYTES,
  });
  if (result.truncated) throw new DocwrightError('git_failed', `The difference between ${from} and ${to} is too large to list.`, { status: 500 });
  return result.stdout.split('\0').filter((path) => path.length > 0);
}

/**
 * The regular files of one commit, read from git's object store without a checkout: the
 * docs check reads the base of a change this way. `prefix` (a folder, '' for the whole
 * tree) makes paths relative to it. Symbolic links and submodules are not files here, as
 * a build from the tree would not follow them either.
 */
export class GitTreeFiles {
  private entries: Map<string, TreeEntry> | undefined;
  private blobs: GitCatFile | undefined;

  constructor(
    private readonly repository: string,
    private readonly commit: string,
    private readonly prefix = '',
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {
    if (!OBJECT_ID.test(commit)) throw new Error(`GitTreeFiles needs a full commit id, got ${JSON.stringify(commit)}.`);
  }

  async listFiles(): Promise<string[]> {
    return [...(await this.listing()).keys()];
  }

  async readFiles(paths: readonly string[], maxBytes: number): Promise<Map<string, TreeFile>> {
    const entries = await this.listing();
    const files = new Map<string, TreeFile>();
    const wanted: Array<{ path: string; object: string }> = [];
    for (const path of paths) {
      const entry = entries.get(path);
      if (entry === undefined) files.set(path, { status: 'missing' });
      else if (entry.size > maxBytes) files.set(path, { status: 'too-large', size: entry.size });
      else wanted.push({ path, object: entry.object });
    }
    if (wanted.length > 0) {
      this.blobs ??= new GitCatFile(this.repository, this.timeoutMs);
      const contents = await this.blobs.read(wanted.map((item) => item.object));
      wanted.forEach((item, index) => files.set(item.path, { status: 'read', bytes: contents[index]! }));
    }
    return files;
  }

  private async listing(): Promise<Map<string, TreeEntry>> {
    if (this.entries !== undefined) return this.entries;
    const result = await runGit(['ls-tree', '-r', '-l', '-z', '--full-tree', this.commit], {
      cwd: this.repository,
      timeoutMs: this.timeoutMs,
      maxOutputBytes: MAX_LISTING_BYTES,
    });
    if (result.truncated) throw new DocwrightError('git_failed', `The tree of ${this.commit} is too large to list.`, { status: 500 });
    const entries = new Map<string, TreeEntry>();
    const start = this.prefix === '' ? '' : `${this.prefix}/`;
    // Each record is "<mode> <type> <object> <size>\t<path>" and NUL.
    for (const record of result.stdout.split('\0')) {
      const tab = record.indexOf('\t');
      if (tab === -1) continue;
      const [mode, type, object, size] = record.slice(0, tab).split(/ +/);
      const path = record.slice(tab + 1);
      if (type !== 'blob' || (mode !== '100644' && mode !== '100755') || object === undefined || !path.startsWith(start)) continue;
      const relative = path.slice(start.length);
      if (relative.split('/').includes('node_modules')) continue;
      entries.set(relative, { object, size: Number(size) });
    }
    this.entries = new Map([...entries].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)));
    return this.entries;
  }
}
