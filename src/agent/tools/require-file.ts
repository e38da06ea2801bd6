import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { linkTarget, type ResolvedPath } from './resolve-in-workspace.js';
import type { ToolContext } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';

/**
 * Refuses anything but an existing regular file, with a message that tells the model
 * what to do instead.
 */
export async function requireRegularFile(context: ToolContext, resolved: ResolvedPath, shown: string): Promise<void> {
  switch (resolved.kind) {
    case 'file':
      return;
    case 'missing':
      throw new ToolFailure(`${shown} does not exist.`);
    case 'directory':
      throw new ToolFailure(`${shown} is a directory; use list_files to see what it contains.`);
    case 'symlink':
      throw new ToolFailure(await describeSymlink(context, shown));
    case 'other':
      throw new ToolFailure(`${shown} is not a regular file.`);
  }
}

/** Explains that a link is not changed through, naming its target when that is in the workspace. */
export async function describeSymlink(context: ToolContext, shown: string): Promise<string> {
  const root = await realpath(context.workspace);
  const target = await linkTarget(root, path.join(root, ...shown.split('/')), shown);
  return target.inside
    ? `${shown} is a symbolic link to ${target.relative}; change ${target.relative} instead.`
    : `${shown} is a symbolic link to a location the tools cannot change.`;
}
