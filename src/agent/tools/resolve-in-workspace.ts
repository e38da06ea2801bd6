import { lstat, realpath } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { ToolFailure } from './tool-failure.js';
import { isGitName, parseWorkspacePath } from './workspace-path.js';
import { DEFAULT_TOOL_LIMITS } from './tool-limits.js';
import { toToolFailure } from './file-system-failure.js';

export type ResolvedKind = 'file' | 'directory' | 'symlink' | 'missing' | 'other';

export interface ResolvedPath {
  /** Absolute path to operate on: the real workspace root, then components none of which is a symbolic link. */
  absolute: string;
  /** The same location relative to the workspace root, with `/` separators. */
  relative: string;
  /**
   * What is there now. `symlink` only when resolving for a write: the final component
   * is a link, which is never followed (delete_file removes the link itself).
   */
  kind: ResolvedKind;
}

export interface ResolveOptions {
  /**
   * Resolving for a change (write, delete, move): a symbolic link as the final component
   * is reported as `symlink` instead of refused, so the tool can explain or remove it.
   */
  forWrite?: boolean;
  maxPathLength?: number;
}

/**
 * Resolves a workspace-relative path (from the model, a docs.json `$ref`, the docs index)
 * to a location inside the workspace, or refuses it. Every reader and writer of the
 * agent's tools and of the docs check goes through here.
 *
 * The walk goes forward from the real workspace root one segment at a time with `lstat`
 * and refuses a symbolic link in any component: a link is never followed, wherever it
 * points, so no chain of links (a directory link `b -> /other/repo`, a link to a link,
 * one swapped for another) can lead a read or a write out. Job clones have no links
 * (they are checked out with `core.symlinks=false`); in a user's own checkout the docs
 * check skips them. Where a link points is looked up only to word the refusal.
 */
export async function resolveInWorkspace(workspace: string, relativePath: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
  const segments = parseWorkspacePath(relativePath, options.maxPathLength ?? DEFAULT_TOOL_LIMITS.maxPathLength);
  const root = await realpath(workspace);
  let current = root;
  for (let index = 0; index < segments.length; index += 1) {
    const isLast = index === segments.length - 1;
    const shown = segments.slice(0, index + 1).join('/');
    const candidate = path.join(current, segments[index]!);
    let stats: Stats;
    try {
      stats = await lstat(candidate);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        const absolute = path.join(candidate, ...segments.slice(index + 1));
        return { absolute, relative: segments.join('/'), kind: 'missing' };
      }
      if (code === 'ENOTDIR') throw new ToolFailure(`${shown}: a parent of this path is a file, not a directory.`);
      throw toToolFailure(error, shown);
    }
    if (stats.isSymbolicLink()) {
      if (isLast && options.forWrite) return { absolute: candidate, relative: shown, kind: 'symlink' };
      throw new ToolFailure(await describeLink(root, candidate, shown));
    }
    current = candidate;
    if (!isLast && !stats.isDirectory()) {
      throw new ToolFailure(`${shown} is a file, not a directory, so ${segments.join('/')} cannot exist.`);
    }
    if (isLast) {
      const kind: ResolvedKind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
      return { absolute: current, relative: shown, kind };
    }
  }
  // parseWorkspacePath never returns an empty list, so the loop always returns.
  throw new ToolFailure('The path names no file.');
}

/** Where a symbolic link leads, for a message: inside the workspace (relative), or why it leads nowhere usable. */
export type LinkTarget = { inside: true; relative: string } | { inside: false; reason: string };

/** Looks a link's target up (never to use it): the words of a refusal that tells the model what to do instead. */
export async function linkTarget(root: string, link: string, shown: string): Promise<LinkTarget> {
  let target: string;
  try {
    target = await realpath(link);
  } catch {
    return { inside: false, reason: `${shown} is a symbolic link whose target does not exist or cannot be resolved.` };
  }
  const relative = path.relative(root, target);
  if (relative === '') return { inside: false, reason: `${shown} is a symbolic link to the workspace root; the tools do not follow symbolic links.` };
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return { inside: false, reason: `${shown} is a symbolic link that points outside the workspace; it cannot be used.` };
  }
  if (relative.split(path.sep).some(isGitName)) {
    return { inside: false, reason: `${shown} is a symbolic link into .git, which the tools cannot read or change.` };
  }
  return { inside: true, relative: relative.split(path.sep).join('/') };
}

async function describeLink(root: string, link: string, shown: string): Promise<string> {
  const target = await linkTarget(root, link, shown);
  if (!target.inside) return target.reason;
  return `${shown} is a symbolic link to ${target.relative}; the tools do not follow symbolic links, so use ${target.relative} instead.`;
}
