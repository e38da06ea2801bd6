import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { SiteSource, SourceFile } from '../../docs-site/site-source.js';
import { globWorkspace } from './workspace-glob.js';
import { readBytes } from './text-file.js';

// Dependencies and build output are not the documentation being checked.
const IGNORED = ['**/node_modules/**', '**/.next/**', '**/.mintlify/**'];
/** Files read at once: enough to keep the disk busy, few enough to bound open descriptors. */
const READ_CONCURRENCY = 32;

/**
 * The working tree as the docs check sees it: files listed by the sandboxed glob (no
 * symbolic links followed, `.git` never listed), read without following a link at the
 * last component.
 */
export class WorkspaceFiles implements SiteSource {
  constructor(
    private readonly root: string,
    private readonly maxPatternLength = 1000,
  ) {}

  listFiles(): Promise<string[]> {
    return globWorkspace(this.root, '**/*', { maxPatternLength: this.maxPatternLength, ignore: IGNORED });
  }

  async readFiles(paths: readonly string[], maxBytes: number): Promise<Map<string, SourceFile>> {
    const files = new Map<string, SourceFile>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < paths.length) {
        const relative = paths[next++]!;
        files.set(relative, await this.readOne(relative, maxBytes));
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
    return files;
  }

  private async readOne(relative: string, maxBytes: number): Promise<SourceFile> {
    if (relative.split('/').some((segment) => segment === '..' || segment === '.git')) return { status: 'missing' };
    const absolute = path.join(this.root, ...relative.split('/'));
    const stats = await lstat(absolute).catch(() => undefined);
    if (!stats?.isFile()) return { status: 'missing' };
    if (stats.size > maxBytes) return { status: 'too-large', size: stats.size };
    const bytes = await readBytes(absolute, relative, maxBytes).catch(() => undefined);
    return bytes === undefined ? { status: 'missing' } : { status: 'read', bytes };
  }
}
