import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from './tool-context.js';
import { assertWritable, resolveForWrite } from './tool-context.js';
import { ToolFailure } from './tool-failure.js';
import { describeSymlink } from './require-file.js';
import { writeText } from './text-file.js';
import { withFileSystemErrors } from './file-system-failure.js';

export interface WriteFileInput {
  path: string;
  content: string;
}

export interface WriteFileResult {
  path: string;
  bytes: number;
  created: boolean;
}

/** Creates or replaces a text file, creating missing parent directories. */
export async function writeFile(context: ToolContext, input: WriteFileInput): Promise<WriteFileResult> {
  if (typeof input.content !== 'string') throw new ToolFailure('content must be a string.');
  const bytes = Buffer.byteLength(input.content, 'utf8');
  if (bytes > context.limits.maxWriteBytes) {
    throw new ToolFailure(`content is ${bytes} bytes, above the limit of ${context.limits.maxWriteBytes} bytes per file.`);
  }
  const resolved = await resolveForWrite(context, input.path);
  const shown = resolved.relative;
  if (resolved.kind === 'symlink') throw new ToolFailure(await describeSymlink(context, shown));
  if (resolved.kind === 'directory') throw new ToolFailure(`${shown} is a directory; give the path of a file.`);
  if (resolved.kind === 'other') throw new ToolFailure(`${shown} is not a regular file.`);
  await assertWritable(context, shown);
  await withFileSystemErrors(shown, () => mkdir(path.dirname(resolved.absolute), { recursive: true }));
  await writeText(resolved.absolute, shown, input.content);
  context.changes.record(shown, 'written');
  return { path: shown, bytes, created: resolved.kind === 'missing' };
}
