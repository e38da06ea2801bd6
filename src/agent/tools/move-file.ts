import { link, mkdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from './tool-context.js';
import { assertWritable, resolveForWrite } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { requireRegularFile } from './require-file.js';
import { toToolFailure, withFileSystemErrors } from './file-system-failure.js';

export interface MoveFileInput {
  from: string;
  to: string;
}

export interface MoveFileResult {
  from: string;
  to: string;
}

/**
 * Moves or renames one file, never replacing an existing target. Symbolic links are not
 * moved: a relative link would point somewhere else from its new place.
 */
export async function moveFile(context: ToolContext, input: MoveFileInput): Promise<MoveFileResult> {
  const source = await resolveForWrite(context, input.from);
  const target = await resolveForWrite(context, input.to);
  await requireRegularFile(context, source, source.relative);
  if (target.kind !== 'missing') {
    throw new ToolFailure(`${target.relative} already exists; move_file does not overwrite. Delete it first if it should be replaced.`);
  }
  await assertWritable(context, source.relative);
  await assertWritable(context, target.relative);
  await withFileSystemErrors(target.relative, () => mkdir(path.dirname(target.absolute), { recursive: true }));
  await moveWithoutOverwrite(source.absolute, target.absolute, source.relative, target.relative);
  context.changes.record(source.relative, 'moved-from');
  context.changes.record(target.relative, 'moved-to');
  return { from: source.relative, to: target.relative };
}

// A hard link fails atomically when the target exists, unlike rename, which silently
// replaces it; rename is the fallback for file systems without hard links.
async function moveWithoutOverwrite(from: string, to: string, shownFrom: string, shownTo: string): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new ToolFailure(`${shownTo} already exists; move_file does not overwrite.`);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EOPNOTSUPP') throw toToolFailure(error, shownFrom);
    await withFileSystemErrors(shownFrom, () => rename(from, to));
    return;
  }
  await withFileSystemErrors(shownFrom, () => unlink(from));
}
