import { lstat, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { ToolFailure } from './tool-failure.js';
import { isGitName, parseWorkspacePath } from './workspace-path.js';
import { DEFAULT_TOOL_LIMITS } from './tool-limits.js';
import { toToolFailure } from './file-system-failure.js';

export type ResolvedKind = 'file' | 'directory' | 'symlink' | 'missing' | 'other';

export interface ResolvedPath {
  /** Real absolute path to operate on; every existing directory in it is symlink-free. */
  absolute: string;
  /** The same location relative to the real workspace root, with `/` separators. */
  relative: string;
  /**
   * What is there now. `symlink` only when resolving for a write: the final component
   * is a link and was deliberately not followed.
   */
  kind: ResolvedKind;
}

export interface ResolveOptions {
  /**
   * Resolving for a change (write, delete, move): the final component is never followed
   * when it is a symbolic link, so a write cannot land wherever the link points.
   */
  forWrite?: boolean;
  maxPathLength?: number;
}

/**
 * Resolves a model-supplied path to a location inside the workspace or refuses it.
 *
 * The walk goes forward from the real workspace root one segment at a time with
 * `lstat`, resolving each symbolic link it meets with `realpath` and checking the result
 * is still inside the workspace and outside `.git`. Walking forward (rather than calling
 * `realpath` on the deepest existing ancestor) also catches dangling links, which
 * `realpath` reports as missing and a later write would otherwise follow.
 */
export async function resolveInWorkspace(workspace: string, relativePath: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
  const segments = parseWorkspacePath(relativePath, options.maxPathLength ?? DEFAULT_TOOL_LIMITS.maxPathLength);
  const root = await realpath(workspace);
  let current = root;
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index]!;
    const isLast = index === segments.length - 1;
    const shown = segments.slice(0, index + 1).join('/');
    const candidate = path.join(current, segment);
    let stats: Stats;
    try {
      stats = await lstat(candidate);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        const absolute = path.join(candidate, ...segments.slice(index + 1));
        return { absolute, relative: relativeTo(root, absolute), kind: 'missing' };
      }
      if (code === 'ENOTDIR') throw new ToolFailure(`${shown}: a parent of this path is a file, not a directory.`);
      throw toToolFailure(error, shown);
    }
    if (stats.isSymbolicLink()) {
      if (isLast && options.forWrite) {
        return { absolute: candidate, relative: relativeTo(root, candidate), kind: 'symlink' };
      }
      let target: string;
      try {
        target = await realpath(candidate);
      } catch {
        throw new ToolFailure(`${shown} is a symbolic link whose target does not exist or cannot be resolved.`);
      }
      assertInsideWorkspace(root, target, shown);
      current = target;
      stats = await stat(target);
    } else {
      current = candidate;
    }
    if (!isLast && !stats.isDirectory()) {
      throw new ToolFailure(`${shown} is a file, not a directory, so ${segments.join('/')} cannot exist.`);
    }
    if (isLast) {
      const kind: ResolvedKind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
      return { absolute: current, relative: relativeTo(root, current), kind };
    }
  }
  // parseWorkspacePath never returns an empty list, so the loop always returns.
  throw new ToolFailure('The path names no file.');
}

function assertInsideWorkspace(root: string, target: string, shown: string): void {
  const relative = path.relative(root, target);
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (outside) throw new ToolFailure(`${shown} is a symbolic link that points outside the workspace; it cannot be used.`);
  if (relative.split(path.sep).some(isGitName)) {
    throw new ToolFailure(`${shown} is a symbolic link into .git, which the tools cannot read or change.`);
  }
}

function relativeTo(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}
