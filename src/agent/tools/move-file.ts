import { link, mkdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from './tool-context.js';
import { assertWritable, resolveForWrite } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { requireRegularFile } from './require-file.js';
import { toToolFailure, withFileSystemErrors } from './file-system-failure.js';
import { updateMoveReferences, type MoveReferences } from './move-references.js';
import type { SiteState } from '../../docs-site/site-state.js';

export interface MoveFileInput {
  from: string;
  to: string;
  /** Leave links to the old path as they are and add a redirect from it in docs.json instead. */
  redirect?: boolean;
}

export interface MoveFileResult extends Partial<MoveReferences> {
  from: string;
  to: string;
  /** Set when the references could not be looked at (the move itself happened). */
  referencesSkipped?: string;
}

/**
 * Moves or renames one file, never replacing an existing target, and keeps the site
 * whole (see move-references.ts): navigation entries and links follow the file, or a
 * redirect is added. Symbolic links are not moved: a relative link would point somewhere
 * else from its new place.
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
  // The index from before the move says who links to the old path.
  const state = await context.docs.updated(context.changes.takePending()).then(
    (built): SiteState | string => built,
    (error: unknown) => `the docs index could not be built (${error instanceof Error ? error.message : String(error)})`,
  );
  await withFileSystemErrors(target.relative, () => mkdir(path.dirname(target.absolute), { recursive: true }));
  await moveWithoutOverwrite(source.absolute, target.absolute, source.relative, target.relative);
  context.changes.record(source.relative, 'moved-from');
  context.changes.record(target.relative, 'moved-to');
  if (typeof state === 'string') return { from: source.relative, to: target.relative, referencesSkipped: state };
  const references = await updateMoveReferences(context, state, source.relative, target.relative, input.redirect === true);
  return { from: source.relative, to: target.relative, ...references };
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
