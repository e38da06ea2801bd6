import { ToolFailure } from './tool-failure.js';

const MESSAGES: Record<string, (shown: string) => string> = {
  ENOENT: (shown) => `${shown} does not exist.`,
  EISDIR: (shown) => `${shown} is a directory, not a file.`,
  ENOTDIR: (shown) => `A parent of ${shown} is a file, not a directory.`,
  EEXIST: (shown) => `${shown} already exists.`,
  ENOTEMPTY: (shown) => `${shown} is a directory that is not empty.`,
  EACCES: (shown) => `Permission denied for ${shown}.`,
  EPERM: (shown) => `Permission denied for ${shown}.`,
  ELOOP: (shown) => `${shown} is a symbolic link, which this tool does not follow.`,
  ENAMETOOLONG: (shown) => `${shown}: a file name in this path is too long.`,
  ENOSPC: () => 'The disk is full.',
  EFBIG: (shown) => `${shown} is too large.`,
};

/**
 * Turns a Node file-system error into a message for the model naming the relative path,
 * because the raw message carries the absolute path of the job's workspace on this host.
 * Anything unexpected is returned unchanged for the caller to treat as an internal error.
 */
export function toToolFailure(error: unknown, shownPath: string): unknown {
  if (error instanceof ToolFailure) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = code === undefined ? undefined : MESSAGES[code];
  return message === undefined ? error : new ToolFailure(message(shownPath));
}

/** Runs a file-system step, converting its errors with {@link toToolFailure}. */
export async function withFileSystemErrors<T>(shownPath: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw toToolFailure(error, shownPath);
  }
}
