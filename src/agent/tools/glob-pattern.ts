/**
 * Glob patterns matched in time proportional to pattern length × path length.
 *
 * Why not picomatch (what tinyglobby, micromatch and fast-glob use): it compiles a glob to
 * a backtracking regular expression, and `*a*a*a*a*a*a*a*a*a*a*b` against a 30-character
 * file name of `a`s took 0.8 s there (measured; each extra `*` multiplies it), blocking the
 * event loop and with it `/healthz` and the job's lease heartbeat. minimatch compiles to
 * regular expressions too. Here a segment is matched by the classic greedy wildcard
 * algorithm, which only ever backtracks to the last `*` (O(pattern × name) worst case),
 * and `**` by memoised dynamic programming over segments.
 *
 * Grammar (documented in docs/agent-jobs.md): `/` separates segments; `**` as a whole
 * segment matches zero or more segments; `*` any run of characters except `/`; `?` one
 * character; `[abc]`, `[a-z]`, `[!a]` / `[^a]` one character of (not of) a set; `{a,b}`
 * alternatives (nested allowed, at most MAX_ALTERNATIVES after expansion); `\x` the
 * character x. Dot files match like any other name. Matching is case-sensitive.
 */
import { ToolFailure } from './tool-failure.js';

export const MAX_ALTERNATIVES = 64;

type Token = { kind: 'char'; char: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'class'; negated: boolean; ranges: Array<[string, string]> };

interface PlainSegment {
  kind: 'plain';
  tokens: Token[];
  literal: string | null;
}
type Segment = { kind: 'globstar' } | PlainSegment;

export interface GlobMatcher {
  readonly pattern: string;
  /** True when the `/`-separated relative path matches. */
  matches(path: string): boolean;
  /** The same for a path split once by `preparePath`, to test it against many patterns. */
  matchesPrepared(path: PreparedPath): boolean;
  /**
   * The leading segments every match starts with (no wildcard in them), joined by `/`;
   * '' when the first segment already has one. A crawler can start there.
   */
  readonly literalPrefix: string;
  /** Most segments a matching path can have; Infinity when a `**` is in the pattern. */
  readonly maxDepth: number;
}

/** Compiles `pattern` or throws a ToolFailure that tells the model what is wrong with it. */
export function compileGlob(pattern: string): GlobMatcher {
  const alternatives = expandBraces(pattern);
  const parsed = alternatives.map(parseSegments);
  const compiled = parsed.map(withShape);
  const literalPrefix = commonLiteralPrefix(parsed);
  const maxDepth = Math.max(...parsed.map((segments) => (segments.some((segment) => segment.kind === 'globstar') ? Infinity : segments.length)));
  return {
    pattern,
    literalPrefix,
    maxDepth,
    matches(path: string): boolean {
      return this.matchesPrepared(preparePath(path));
    },
    matchesPrepared(path: PreparedPath): boolean {
      for (const alternative of compiled) if (matchAlternative(alternative, path)) return true;
      return false;
    },
  };
}

/** A path split into names, and each name into code points, once. */
export interface PreparedPath {
  readonly names: readonly string[];
  readonly characters: ReadonlyArray<readonly string[]>;
}

export function preparePath(path: string): PreparedPath {
  const names = path.split('/');
  return { names, characters: names.map((name) => Array.from(name)) };
}

/** `{a,b}c` → `ac`, `bc`; unbalanced braces are literal characters, as in bash. */
function expandBraces(pattern: string): string[] {
  const open = findTopLevelBrace(pattern);
  if (open === null) return [pattern];
  const { start, end, options } = open;
  const results: string[] = [];
  for (const option of options) {
    for (const expanded of expandBraces(pattern.slice(0, start) + option + pattern.slice(end + 1))) {
      results.push(expanded);
      if (results.length > MAX_ALTERNATIVES) {
        throw new ToolFailure(`The glob pattern expands to more than ${MAX_ALTERNATIVES} alternatives; use fewer {a,b} groups.`);
      }
    }
  }
  return [...new Set(results)];
}

/** The first `{…}` with a top-level comma, its span and its comma-separated options. */
function findTopLevelBrace(pattern: string): { start: number; end: number; options: string[] } | null {
  for (let start = 0; start < pattern.length; start += 1) {
    if (pattern[start] === '\\') {
      start += 1;
      continue;
    }
    if (pattern[start] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    for (let index = start; index < pattern.length; index += 1) {
      const character = pattern[index];
      if (character === '\\') {
        index += 1;
      } else if (character === '{') {
        depth += 1;
      } else if (character === '}') {
        depth -= 1;
        if (depth === 0) {
          if (commas.length === 0) break;
          const bounds = [start, ...commas, index];
          const options = bounds.slice(1).map((bound, position) => pattern.slice(bounds[position]! + 1, bound));
          return { start, end: index, options };
        }
      } else if (character === ',' && depth === 1) {
        commas.push(index);
      }
    }
  }
  return null;
}

function parseSegments(pattern: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of pattern.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '**') {
      // Consecutive globstars mean the same as one; collapsing them keeps the DP small.
      if (segments.at(-1)?.kind !== 'globstar') segments.push({ kind: 'globstar' });
      continue;
    }
    const tokens = parseTokens(part);
    const literal = tokens.every((token) => token.kind === 'char') ? tokens.map((token) => (token as { char: string }).char).join('') : null;
    // An escaped `\.` is the same directory as a bare `.`; kept, it would make the crawler
    // start at `.` and list `./docs/…` instead of `docs/…`.
    if (literal === '.') continue;
    segments.push({ kind: 'plain', tokens: collapseStars(tokens), literal });
  }
  return segments;
}

function parseTokens(part: string): Token[] {
  const tokens: Token[] = [];
  const characters = Array.from(part);
  for (let index = 0; index < characters.length; index += 1) {
    const character = characters[index]!;
    if (character === '\\' && index + 1 < characters.length) {
      index += 1;
      tokens.push({ kind: 'char', char: characters[index]! });
    } else if (character === '*') {
      tokens.push({ kind: 'star' });
    } else if (character === '?') {
      tokens.push({ kind: 'any' });
    } else if (character === '[') {
      const parsed = parseClass(characters, index);
      if (parsed === null) tokens.push({ kind: 'char', char: '[' });
      else {
        tokens.push(parsed.token);
        index = parsed.end;
      }
    } else {
      tokens.push({ kind: 'char', char: character });
    }
  }
  return tokens;
}

/** `[…]` starting at `start`; null when it is not closed (then `[` is literal). */
function parseClass(characters: string[], start: number): { token: Token; end: number } | null {
  let index = start + 1;
  const negated = characters[index] === '!' || characters[index] === '^';
  if (negated) index += 1;
  const ranges: Array<[string, string]> = [];
  let first = true;
  for (; index < characters.length; index += 1) {
    let character = characters[index]!;
    if (character === ']' && !first) return { token: { kind: 'class', negated, ranges }, end: index };
    first = false;
    if (character === '\\' && index + 1 < characters.length) character = characters[++index]!;
    if (characters[index + 1] === '-' && index + 2 < characters.length && characters[index + 2] !== ']') {
      let upper = characters[index + 2]!;
      index += 2;
      if (upper === '\\' && index + 1 < characters.length) upper = characters[++index]!;
      ranges.push([character, upper]);
    } else {
      ranges.push([character, character]);
    }
  }
  return null;
}

/** `a**b` inside a segment is `a*b`: adjacent stars add nothing but cost. */
function collapseStars(tokens: Token[]): Token[] {
  return tokens.filter((token, index) => !(token.kind === 'star' && tokens[index - 1]?.kind === 'star'));
}

function commonLiteralPrefix(alternatives: Segment[][]): string {
  const prefixes = alternatives.map((segments) => {
    const literal: string[] = [];
    // The last segment names the file itself, not a directory to start from.
    for (const segment of segments.slice(0, -1)) {
      if (segment.kind !== 'plain' || segment.literal === null) break;
      literal.push(segment.literal);
    }
    return literal;
  });
  const shortest = Math.min(...prefixes.map((prefix) => prefix.length));
  const common: string[] = [];
  for (let index = 0; index < shortest; index += 1) {
    const name = prefixes[0]![index]!;
    if (!prefixes.every((prefix) => prefix[index] === name)) break;
    common.push(name);
  }
  return common.join('/');
}

/** Segments against names: `**` consumes zero or more names; memoised, so O(segments × names). */
/**
 * Where the globstars are decides how much search a match needs: none (each segment meets
 * one name), one in front (`**\/x/y`: the plain part meets the last names), one at the
 * end (`x/y/**`: the first names), or anything else (the memoised search).
 */
type Shape = 'plain' | 'leading' | 'trailing' | 'general';
interface Alternative {
  segments: Segment[];
  shape: Shape;
  /** Plain segments in the pattern. */
  plainCount: number;
}

function withShape(segments: Segment[]): Alternative {
  const globstars = segments.filter((segment) => segment.kind === 'globstar').length;
  const plainCount = segments.length - globstars;
  let shape: Shape = 'general';
  if (globstars === 0) shape = 'plain';
  else if (globstars === 1 && segments[0]!.kind === 'globstar') shape = 'leading';
  else if (globstars === 1 && segments.at(-1)!.kind === 'globstar') shape = 'trailing';
  return { segments, shape, plainCount };
}

function matchAlternative({ segments, shape, plainCount }: Alternative, path: PreparedPath): boolean {
  const count = path.names.length;
  if (shape === 'plain') return plainCount === count && matchRun(segments, 0, path, 0, plainCount);
  if (count < plainCount) return false;
  if (shape === 'leading') return matchRun(segments, 1, path, count - plainCount, plainCount);
  if (shape === 'trailing') return matchRun(segments, 0, path, 0, plainCount);
  return matchSegments(segments, path);
}

function matchSegments(segments: Segment[], path: PreparedPath): boolean {
  const { names, characters } = path;
  const failed = new Set<number>();
  const width = names.length + 1;
  const visit = (segmentIndex: number, nameIndex: number): boolean => {
    if (segmentIndex === segments.length) return nameIndex === names.length;
    const key = segmentIndex * width + nameIndex;
    if (failed.has(key)) return false;
    const segment = segments[segmentIndex]!;
    let matched: boolean;
    if (segment.kind === 'globstar') {
      matched = visit(segmentIndex + 1, nameIndex) || (nameIndex < names.length && visit(segmentIndex, nameIndex + 1));
    } else {
      matched = nameIndex < names.length && matchName(segment, names[nameIndex]!, characters[nameIndex]!) && visit(segmentIndex + 1, nameIndex + 1);
    }
    if (!matched) failed.add(key);
    return matched;
  };
  return visit(0, 0);
}

/** `count` plain segments from `segmentStart` against as many names from `nameStart`. */
function matchRun(segments: Segment[], segmentStart: number, path: PreparedPath, nameStart: number, count: number): boolean {
  for (let offset = 0; offset < count; offset += 1) {
    const segment = segments[segmentStart + offset] as PlainSegment;
    if (!matchName(segment, path.names[nameStart + offset]!, path.characters[nameStart + offset]!)) return false;
  }
  return true;
}

/**
 * Greedy wildcard matching: on a mismatch, only the most recent `*` takes one more
 * character. Every other token consumes exactly one character, which is what makes
 * this exact and O(tokens × name length).
 */
function matchName(segment: PlainSegment, name: string, characters: readonly string[]): boolean {
  if (segment.literal !== null) return segment.literal === name;
  const tokens = segment.tokens;
  let token = 0;
  let character = 0;
  let starToken = -1;
  let starCharacter = 0;
  while (character < characters.length) {
    const current = tokens[token];
    if (current !== undefined && current.kind !== 'star' && matchOne(current, characters[character]!)) {
      token += 1;
      character += 1;
    } else if (current?.kind === 'star') {
      starToken = token;
      starCharacter = character;
      token += 1;
    } else if (starToken >= 0) {
      token = starToken + 1;
      starCharacter += 1;
      character = starCharacter;
    } else {
      return false;
    }
  }
  while (tokens[token]?.kind === 'star') token += 1;
  return token === tokens.length;
}

function matchOne(token: Exclude<Token, { kind: 'star' }>, character: string): boolean {
  if (token.kind === 'char') return token.char === character;
  if (token.kind === 'any') return true;
  const inside = token.ranges.some(([low, high]) => character >= low && character <= high);
  return inside !== token.negated;
}
