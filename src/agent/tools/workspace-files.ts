import { lstat } from 'node:fs/promises';
import type { SiteSource, SourceFile } from '../../docs-site/site-source.js';
import { globWorkspace } from './workspace-glob.js';
import { readBytes } from './text-file.js';
import { resolveInWorkspace } from './resolve-in-workspace.js';
import { isToolFailure } from './tool-failure.js';

// Dependencies and build output are not the documentation being checked.
const IGNORED = ['**/node_modules/**', '**/.next/**', '**/.mintlify/**'];
/** Files read at once: enough to keep the disk busy, few enough to bound open descriptors. */
const READ_CONCURRENCY = 32;
/** Linux's PATH_MAX: a path the listing found is never refused for its length alone. */
const MAX_PATH_LENGTH = 4096;

/**
 * The working tree as the docs check sees it: files listed by the sandboxed glob (no
 * symbolic links followed, `.git` never listed), each read through the workspace
 * resolver, so a path with a symbolic link in any component (`b/docs.json` with
 * `b -> /another/repo`) is missing, never read through the link.
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
    let absolute: string;
    try {
      const resolved = await resolveInWorkspace(this.root, relative, { maxPathLength: MAX_PATH_LENGTH });
      if (resolved.kind !== 'file') return { status: 'missing' };
      absolute = resolved.absolute;
    } catch (error) {
      if (isToolFailure(error)) return { status: 'missing' };
      throw error;
    }
    const stats = await lstat(absolute).catch(() => undefined);
    if (!stats?.isFile()) return { status: 'missing' };
    if (stats.size > maxBytes) return { status: 'too-large', size: stats.size };
    const bytes = await readBytes(absolute, relative, maxBytes).catch(() => undefined);
    return bytes === undefined ? { status: 'missing' } : { status: 'read', bytes };
  }
}
