import type { DocsProblem, DocsProblemKind } from './docs-problem.js';

export interface ProblemSplit {
  /** Problems the change introduced, in report order. */
  introduced: DocsProblem[];
  /** Problems the base already had. */
  existing: DocsProblem[];
}

/**
 * Separates the problems a change introduced from those its base already had. A problem
 * is the same problem when its file, kind and message match: lines are left out because
 * an edit above a broken link moves it without fixing or breaking anything. Counted as a
 * multiset, so a page that had one broken link to `/a` and now has two has one new.
 */
export function splitProblems(current: readonly DocsProblem[], base: readonly DocsProblem[]): ProblemSplit {
  const remaining = new Map<string, number>();
  for (const problem of base) {
    const key = identity(problem);
    remaining.set(key, (remaining.get(key) ?? 0) + 1);
  }
  const introduced: DocsProblem[] = [];
  const existing: DocsProblem[] = [];
  for (const problem of current) {
    const key = identity(problem);
    const left = remaining.get(key) ?? 0;
    if (left > 0) {
      remaining.set(key, left - 1);
      existing.push(problem);
    } else {
      introduced.push(problem);
    }
  }
  return { introduced, existing };
}

export function countByKind(problems: readonly DocsProblem[]): Partial<Record<DocsProblemKind, number>> {
  const counts: Partial<Record<DocsProblemKind, number>> = {};
  for (const problem of problems) counts[problem.kind] = (counts[problem.kind] ?? 0) + 1;
  return counts;
}

function identity(problem: DocsProblem): string {
  return `${problem.path}\0${problem.kind}\0${problem.message}`;
}
