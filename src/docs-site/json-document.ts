import type { DocsProblem } from '../agent/tools/docs-problem.js';
import { lineAtOffset, lineStartsOf } from './json-string-lines.js';

export type JsonDocument = { ok: true; value: unknown } | { ok: false; problem: DocsProblem };

/**
 * Parses one configuration file, or says why not: too large, nested deeper than
 * `maxDepth` (checked in one pass before JSON.parse, which takes 105 ms on the main
 * thread for 100,000 levels), or invalid JSON with the line of the error.
 */
export function parseJsonDocument(path: string, text: string, limits: { maxChars: number; maxDepth: number }): JsonDocument {
  if (text.length > limits.maxChars) {
    return { ok: false, problem: { path, kind: 'check-limit', message: `${path} is larger than ${limits.maxChars} characters; it was not read.` } };
  }
  if (nestingDepth(text, limits.maxDepth) > limits.maxDepth) {
    return { ok: false, problem: { path, kind: 'check-limit', message: `${path} nests more than ${limits.maxDepth} levels deep; it was not read.` } };
  }
  try {
    // A byte order mark is legal at the start of a file but not in JSON.
    return { ok: true, value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const problem: DocsProblem = { path, kind: 'navigation', message: `${path} is not valid JSON: ${message}` };
    const line = lineOfJsonError(text, message);
    if (line !== undefined) problem.line = line;
    return { ok: false, problem };
  }
}

/** Node's messages name either `line N` or `position N` (an offset); these patterns are fixed, not built from input. */
function lineOfJsonError(text: string, message: string): number | undefined {
  const line = /line (\d+)/.exec(message);
  if (line) return Number(line[1]);
  const position = /position (\d+)/.exec(message);
  return position ? lineAtOffset(lineStartsOf(text), Number(position[1])) : undefined;
}

/** The deepest nesting of `{`/`[` outside strings, in one linear pass that stops past `limit`. */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (code === 0x7d || code === 0x5d) {
      depth -= 1;
    }
  }
  return deepest;
}
