/**
 * `limit`: the check as a whole was cut short (too many pages or problems, out of time).
 * `check-limit`: one page could not be checked within the per-page caps (size, time,
 * memory, nesting); the rest of the site was.
 */
export type DocsProblemKind = 'mdx-syntax' | 'frontmatter' | 'broken-link' | 'navigation' | 'limit' | 'check-limit';

export const DOCS_PROBLEM_KINDS: readonly DocsProblemKind[] = ['mdx-syntax', 'frontmatter', 'broken-link', 'navigation', 'limit', 'check-limit'];

/** One thing the docs check found wrong; `line` is 1-based when known. */
export interface DocsProblem {
  path: string;
  line?: number;
  message: string;
  kind: DocsProblemKind;
}

/** Stable order for reports: by path (code points), then line, then message. */
export function compareProblems(left: DocsProblem, right: DocsProblem): number {
  if (left.path !== right.path) return left.path < right.path ? -1 : 1;
  const lines = (left.line ?? 0) - (right.line ?? 0);
  if (lines !== 0) return lines;
  return left.message < right.message ? -1 : left.message > right.message ? 1 : 0;
}
