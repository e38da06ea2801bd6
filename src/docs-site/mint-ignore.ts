import path from 'node:path';
import ignore from 'ignore';
import { trimSlashes } from './trim-slashes.js';

/**
 * https://www.mintlify.com/docs/organize/mintignore: Mintlify skips these even without a
 * .mintignore, at any depth, and a `!` pattern cannot bring them back. `.mintignore`
 * itself is configuration, not content.
 */
const ALWAYS_IGNORED = new Set(['.git', '.github', '.claude', '.agents', 'node_modules']);
const MINTIGNORE_NAME = '.mintignore';

const MAX_TEXT_LENGTH = 64 * 1024;
/**
 * `ignore` tests every pattern against the path and each of its parent folders, so the
 * cost is patterns × files. Measured (Node 20): 5,000 plain patterns cost 0.75 ms per
 * path four folders deep, 5,000 patterns with thirteen `*` each cost 20 ms per path,
 * 1,000 of them 0.8 ms. Real .mintignore files hold a few dozen lines.
 */
const MAX_PATTERNS = 1000;
// Runs of `*`, `**` counting as one: `**/drafts/**/*.md*` has four.
const MAX_STAR_RUNS_PER_PATTERN = 6;
const MAX_PATTERN_LENGTH = 1024;

export interface MintIgnore {
  /** True when the path (relative to the docs root, `/`-separated) is not built by Mintlify. */
  ignores: (pathRelativeToDocsRoot: string) => boolean;
  /** Lines of the .mintignore that were left out, each with the reason (caps). */
  skipped: string[];
}

/**
 * Reads a .mintignore (gitignore syntax, next to docs.json:
 * https://www.mintlify.com/docs/organize/mintignore). Ignored files are not built and
 * not reachable by URL. Patterns go to the `ignore` package, which escapes them before
 * building its expressions; the caps above bound what a hostile file can cost.
 */
export function parseMintIgnore(text: string | undefined): MintIgnore {
  const skipped: string[] = [];
  const matcher = ignore();
  if (typeof text === 'string') {
    if (text.length > MAX_TEXT_LENGTH) skipped.push(`The .mintignore is longer than ${MAX_TEXT_LENGTH} characters; only the start was read.`);
    const lines = text.slice(0, MAX_TEXT_LENGTH).split(/\r?\n/);
    let patterns = 0;
    for (const [index, line] of lines.entries()) {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      if (patterns >= MAX_PATTERNS) {
        skipped.push(`Line ${index + 1} and later: more than ${MAX_PATTERNS} patterns.`);
        break;
      }
      if (line.length > MAX_PATTERN_LENGTH || starRuns(line) > MAX_STAR_RUNS_PER_PATTERN) {
        skipped.push(`Line ${index + 1}: longer than ${MAX_PATTERN_LENGTH} characters or more than ${MAX_STAR_RUNS_PER_PATTERN} runs of "*".`);
        continue;
      }
      patterns += 1;
      matcher.add(line);
    }
  }
  const ignores = (pathRelativeToDocsRoot: string): boolean => {
    if (typeof pathRelativeToDocsRoot !== 'string' || pathRelativeToDocsRoot.includes('\0')) return false;
    const normalized = trimSlashes(path.posix.normalize(pathRelativeToDocsRoot));
    // Outside the docs root a .mintignore has no say; `ignore` would throw on these.
    if (normalized === '' || normalized === '.' || normalized === '..' || normalized.startsWith('../')) return false;
    if (normalized === MINTIGNORE_NAME) return true;
    if (normalized.split('/').some((segment) => ALWAYS_IGNORED.has(segment))) return true;
    try {
      return matcher.ignores(normalized);
    } catch {
      return false;
    }
  };
  return { ignores, skipped };
}

/** The predicate alone: true when Mintlify does not build the file. */
export function createMintIgnore(text: string | undefined): (pathRelativeToDocsRoot: string) => boolean {
  return parseMintIgnore(text).ignores;
}

function starRuns(line: string): number {
  let runs = 0;
  for (let index = 0; index < line.length; index += 1) {
    if (line[index] === '*' && line[index - 1] !== '*') runs += 1;
  }
  return runs;
}
