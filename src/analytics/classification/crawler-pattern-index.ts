import { requiredLiteral } from './required-literal.js';

/**
 * Finds which of many regular expressions (the crawler-user-agents list, ~1,500 patterns)
 * matches a user agent without running all of them: each pattern is filed under the first
 * three characters of a literal it requires, so a user agent only runs the patterns whose
 * literal it actually contains. Patterns without a usable literal are always run.
 */
export interface PatternMatch {
  /** Index of the pattern in the list it was built from. */
  pattern: number;
  start: number;
  text: string;
}

export interface CrawlerPatternIndex {
  /** The leftmost match in the user agent; on a tie, the pattern listed first. */
  find(userAgent: string): PatternMatch | null;
}

interface IndexedPattern {
  index: number;
  expression: RegExp;
  literal: string | null;
}

export function createCrawlerPatternIndex(patterns: readonly string[]): CrawlerPatternIndex {
  const byTrigram = new Map<number, IndexedPattern[]>();
  const unindexed: IndexedPattern[] = [];
  patterns.forEach((source, index) => {
    let expression: RegExp;
    try {
      expression = new RegExp(source);
    } catch {
      return; // a pattern this engine cannot compile cannot match here either
    }
    const literal = requiredLiteral(source);
    const indexed: IndexedPattern = { index, expression, literal };
    if (literal === null) {
      unindexed.push(indexed);
      return;
    }
    const key = trigramAt(literal, 0);
    const bucket = byTrigram.get(key);
    if (bucket === undefined) byTrigram.set(key, [indexed]);
    else bucket.push(indexed);
  });

  return {
    find(userAgent: string): PatternMatch | null {
      const lower = userAgent.toLowerCase();
      const tried = new Set<number>();
      let best: PatternMatch | null = null;
      const consider = (candidate: IndexedPattern): void => {
        if (tried.has(candidate.index)) return;
        tried.add(candidate.index);
        const found = candidate.expression.exec(userAgent);
        if (found === null) return;
        const better = best === null || found.index < best.start || (found.index === best.start && candidate.index < best.pattern);
        if (better) best = { pattern: candidate.index, start: found.index, text: found[0] };
      };
      for (let position = 0; position + 3 <= lower.length; position++) {
        const bucket = byTrigram.get(trigramAt(lower, position));
        if (bucket === undefined) continue;
        for (const candidate of bucket) {
          if (candidate.literal !== null && lower.startsWith(candidate.literal, position)) consider(candidate);
        }
      }
      for (const candidate of unindexed) consider(candidate);
      return best;
    },
  };
}

function trigramAt(text: string, position: number): number {
  // Characters beyond 16 bits are folded; a collision only costs one extra startsWith.
  return ((text.charCodeAt(position) & 0xffff) * 65536 + (text.charCodeAt(position + 1) & 0xffff)) * 65536 + (text.charCodeAt(position + 2) & 0xffff);
}
