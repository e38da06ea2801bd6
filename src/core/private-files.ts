import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * The data dir holds the database (forge credentials, sealed; job history; visitor
 * analytics), the generated instance secret and clones of private repositories. Other
 * local users must read none of it, whatever the process umask: what Docwright creates
 * there is its owner's only (directories 0700, files 0600). Modes are set explicitly
 * rather than through a process-wide umask, which would also change files the agent and
 * git write for the repository (those are covered by their 0700 parent directory).
 */
export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const OTHERS = 0o077;

/**
 * Creates `directory` and any missing parent as 0700. With `narrow`, an existing directory
 * that others may enter (made by an older version, or with a loose umask) is narrowed to
 * 0700 too, if this process owns it; one that belongs to another user is left alone.
 */
export function ensurePrivateDirectory(directory: string, options: { narrow: boolean }): void {
  const created = mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (created === undefined && options.narrow) narrow(directory, PRIVATE_DIRECTORY_MODE);
}

/**
 * Creates `file` empty as 0600 unless it exists (without truncating it: several processes
 * may open one database at once), and narrows an existing one to 0600 if this process owns it.
 */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  narrow(file, PRIVATE_FILE_MODE);
}

/** Narrows an existing file or directory this process owns to `mode`; anything missing is skipped. */
export function narrowIfPresent(path: string, mode: number): void {
  try {
    narrow(path, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function narrow(path: string, mode: number): void {
  const stats = statSync(path);
  if ((stats.mode & OTHERS) === 0) return;
  if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) return;
  chmodSync(path, mode);
}
