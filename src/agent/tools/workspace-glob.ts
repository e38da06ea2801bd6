import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { compileGlob } from './glob-pattern.js';
import { ToolFailure } from './tool-failure.js';
import { isGitName, touchesGit } from './workspace-path.js';

export interface WorkspaceGlobOptions {
  maxPatternLength: number;
  /** Extra ignore globs, e.g. `node_modules` for the docs check. */
  ignore?: readonly string[];
  /** Budget for matching the pattern against every crawled path (default 5 s). */
  timeoutMs?: number;
}

/**
 * Checks a glob pattern before it reaches the crawler. Glob syntax allows `../` and
 * absolute roots, which would crawl outside the workspace; brace tricks that slip past
 * this lexical check are caught again by the filter on the results.
 */
export function validateGlobPattern(pattern: unknown, maxLength: number): string {
  if (typeof pattern !== 'string' || pattern.trim() === '') throw new ToolFailure('The glob pattern must be a non-empty string.');
  if (pattern.length > maxLength) throw new ToolFailure(`The glob pattern is longer than ${maxLength} characters.`);
  if (pattern.includes('\0')) throw new ToolFailure('The glob pattern contains a NUL byte.');
  if (pattern.startsWith('/') || /^[A-Za-z]:/.test(pattern)) {
    throw new ToolFailure('The glob pattern is absolute; patterns are relative to the workspace root, such as "docs/**/*.mdx".');
  }
  const segments = pattern.split('/');
  if (segments.includes('..')) throw new ToolFailure('The glob pattern contains "..", which is not allowed.');
  if (segments.some(isGitName)) throw new ToolFailure('The .git directory cannot be listed or searched.');
  return pattern;
}

/**
 * All regular files matching `pattern`, relative to the workspace with `/` separators,
 * sorted. Symbolic links are neither followed nor listed, and `.git` (any spelling) never
 * appears.
 *
 * The crawler only ever sees fixed patterns (`**` below the pattern's literal prefix);
 * the caller's pattern is matched by `compileGlob`, whose cost is bounded (see
 * glob-pattern.ts), and the matching yields to the event loop every few milliseconds
 * and gives up after `timeoutMs`, so no pattern and no file name can stall the process.
 */
export async function globWorkspace(workspace: string, pattern: string, options: WorkspaceGlobOptions): Promise<string[]> {
  const checked = validateGlobPattern(pattern, options.maxPatternLength);
  const matcher = compileGlob(checked);
  const root = await realpath(workspace);
  const base = await crawlBase(root, matcher.literalPrefix);
  if (base === null) return [];
  const crawled = await glob('**', {
    cwd: base === '' ? root : path.join(root, ...base.split('/')),
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    absolute: false,
    ...(Number.isFinite(matcher.maxDepth) ? { deep: Math.max(0, matcher.maxDepth - 1 - segmentCount(base)) } : {}),
    ignore: ['**/.git/**', '**/.git', ...(options.ignore ?? [])],
  });
  const found = await filterInSlices(
    crawled.map((entry) => (base === '' ? entry : `${base}/${entry}`)),
    (entry) => matcher.matches(entry),
    options.timeoutMs ?? DEFAULT_MATCH_TIMEOUT_MS,
  );
  const lexicallyInside = found.filter((entry) => {
    const segments = entry.split('/');
    return !entry.startsWith('/') && !segments.includes('..') && !touchesGit(entry);
  });
  const inside = await keepSymlinkFree(root, [...new Set(lexicallyInside)]);
  return inside.sort(compareCodePoints);
}

const DEFAULT_MATCH_TIMEOUT_MS = 5_000;
const SLICE_MS = 10;

function segmentCount(base: string): number {
  return base === '' ? 0 : base.split('/').length;
}

/**
 * Where to crawl from: the literal prefix when it is a real directory inside the
 * workspace (not through a symbolic link, not `.git`), '' for the root, null when
 * nothing can match.
 */
async function crawlBase(root: string, prefix: string): Promise<string | null> {
  if (prefix === '') return '';
  const segments = prefix.split('/');
  if (segments.some((segment) => segment === '..' || isGitName(segment))) return null;
  const expected = path.join(root, ...segments);
  const real = await realpath(expected).catch(() => null);
  return real === expected ? prefix : null;
}

/** Filters in slices of SLICE_MS, yielding between them; a ToolFailure past `timeoutMs`. */
async function filterInSlices(entries: string[], keep: (entry: string) => boolean, timeoutMs: number): Promise<string[]> {
  const kept: string[] = [];
  const started = performance.now();
  let sliceStart = started;
  for (const entry of entries) {
    if (keep(entry)) kept.push(entry);
    const now = performance.now();
    if (now - sliceStart < SLICE_MS) continue;
    if (now - started > timeoutMs) {
      throw new ToolFailure(`Matching the glob pattern took longer than ${timeoutMs} ms and was stopped; use a simpler pattern with fewer "*".`);
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  }
  return kept;
}

/**
 * The crawler does not descend into linked directories, but a pattern with a literal
 * prefix (`out/secret.txt`) makes it start inside one. Keeping only entries whose
 * directory is its own real path, and which are regular files themselves, drops every
 * path that passes through or ends in a symbolic link.
 */
async function keepSymlinkFree(root: string, entries: string[]): Promise<string[]> {
  const directoryVerdicts = new Map<string, Promise<boolean>>();
  const directoryIsReal = (directory: string): Promise<boolean> => {
    let verdict = directoryVerdicts.get(directory);
    if (verdict === undefined) {
      const expected = path.join(root, ...directory.split('/'));
      verdict = realpath(expected).then(
        (real) => real === expected,
        () => false,
      );
      directoryVerdicts.set(directory, verdict);
    }
    return verdict;
  };
  const kept = await Promise.all(
    entries.map(async (entry) => {
      const directory = path.posix.dirname(entry);
      if (directory !== '.' && !(await directoryIsReal(directory))) return undefined;
      const stats = await lstat(path.join(root, ...entry.split('/'))).catch(() => undefined);
      return stats?.isFile() ? entry : undefined;
    }),
  );
  return kept.filter((entry): entry is string => entry !== undefined);
}

/** Locale-independent ordering, so results are the same on every host. */
export function compareCodePoints(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
