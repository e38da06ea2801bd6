import { ToolFailure } from './tool-failure.js';

/**
 * Lexical rules for a path the model names. They run before the file system is touched,
 * so that obviously hostile input (absolute paths, `..`, NUL, backslashes) never reaches
 * it; `resolve-in-workspace.ts` then guards against what only the disk can reveal
 * (symbolic links).
 */

// Characters that HFS+ ignores when comparing names: `.g\u200Cit` is `.git` there
// (CVE-2014-9390). Removing them before comparing keeps `.git` unreachable on any disk.
const IGNORABLE_CODE_POINTS = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u206A-\u206F\uFEFF]/g;

/** True for any spelling of `.git` that some file system treats as the `.git` entry. */
export function isGitName(segment: string): boolean {
  const normalized = segment
    .normalize('NFC')
    .replace(IGNORABLE_CODE_POINTS, '')
    // NTFS alternate data streams (`.git::$INDEX_ALLOCATION`) name the directory itself.
    .split(':')[0]!
    // NTFS drops trailing dots and spaces.
    .replace(/[. ]+$/, '')
    .toLowerCase();
  // `git~1` is the NTFS short name of `.git`.
  return normalized === '.git' || normalized === 'git~1';
}

/** True when any segment of a `/`-separated relative path is a spelling of `.git`. */
export function touchesGit(relativePath: string): boolean {
  return relativePath.split('/').some(isGitName);
}

/**
 * Splits a workspace-relative path into its segments, or explains why it is refused.
 * `.` and empty segments are dropped (`docs//./a.md` is `docs/a.md`).
 */
export function parseWorkspacePath(input: unknown, maxLength: number): string[] {
  if (typeof input !== 'string') throw new ToolFailure('The path must be a string.');
  if (input.length === 0) throw new ToolFailure('The path is empty; name a file relative to the workspace root.');
  const shown = JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}…` : input);
  if (input.length > maxLength) throw new ToolFailure(`The path ${shown} is longer than ${maxLength} characters.`);
  if (input.includes('\0')) throw new ToolFailure(`The path ${shown} contains a NUL byte.`);
  if (/[\u0001-\u001f\u007f]/.test(input)) throw new ToolFailure(`The path ${shown} contains control characters.`);
  if (input.includes('\\')) {
    throw new ToolFailure(`The path ${shown} contains a backslash; use "/" to separate directories.`);
  }
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input)) {
    throw new ToolFailure(`The path ${shown} is absolute; give a path relative to the workspace root, such as "docs/intro.mdx".`);
  }
  const segments = input.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) {
    throw new ToolFailure(`The path ${shown} contains "..", which is not allowed; paths must stay inside the workspace.`);
  }
  if (segments.length === 0) {
    throw new ToolFailure(`The path ${shown} names the workspace root; name a file inside it.`);
  }
  if (segments.some(isGitName)) {
    throw new ToolFailure(`The path ${shown} is inside .git, which the tools cannot read or change.`);
  }
  return segments;
}
