import { unlink } from 'node:fs/promises';
import type { ToolContext } from './tool-context.js';
import { assertWritable, resolveForWrite } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { withFileSystemErrors } from './file-system-failure.js';

export interface DeleteFileInput {
  path: string;
}

export interface DeleteFileResult {
  path: string;
  deleted: true;
}

/**
 * Deletes one file. A symbolic link is removed itself (its target is untouched);
 * directories are refused so that one call cannot remove a whole tree.
 */
export async function deleteFile(context: ToolContext, input: DeleteFileInput): Promise<DeleteFileResult> {
  const resolved = await resolveForWrite(context, input.path);
  const shown = resolved.relative;
  if (resolved.kind === 'missing') throw new ToolFailure(`${shown} does not exist.`);
  if (resolved.kind === 'directory') throw new ToolFailure(`${shown} is a directory; delete the files in it one by one.`);
  if (resolved.kind === 'other') throw new ToolFailure(`${shown} is not a regular file.`);
  await assertWritable(context, shown);
  await withFileSystemErrors(shown, () => unlink(resolved.absolute));
  context.changes.record(shown, 'deleted');
  return { path: shown, deleted: true };
}
