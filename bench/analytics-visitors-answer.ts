/** The visitors endpoint's question and answer, shared by Docwright's side and the baselines so answers can be compared. */
export interface VisitorsQuestion {
  /** UTC ms, inclusive. */
  from: number;
  /** UTC ms, exclusive. */
  to: number;
  limit: number;
  offset: number;
}

export interface VisitorCounts {
  human: number;
  ai: number;
  total: number;
}

export interface VisitorsAnswer {
  totals: VisitorCounts;
  visitors: Array<VisitorCounts & { path: string }>;
  hasMore: boolean;
}

/** Differences between two answers, empty when they agree exactly; for the report. */
export function compareAnswers(expected: VisitorsAnswer, actual: VisitorsAnswer, limit = 5): string[] {
  const differences: string[] = [];
  const counts = (value: VisitorCounts): string => `human ${value.human}, ai ${value.ai}, total ${value.total}`;
  if (counts(expected.totals) !== counts(actual.totals)) differences.push(`totals: expected ${counts(expected.totals)}, got ${counts(actual.totals)}`);
  if (expected.hasMore !== actual.hasMore) differences.push(`hasMore: expected ${expected.hasMore}, got ${actual.hasMore}`);
  if (expected.visitors.length !== actual.visitors.length) {
    differences.push(`rows: expected ${expected.visitors.length}, got ${actual.visitors.length}`);
  }
  for (let index = 0; index < Math.max(expected.visitors.length, actual.visitors.length) && differences.length < limit; index++) {
    const want = expected.visitors[index];
    const got = actual.visitors[index];
    const text = (row: typeof want): string => (row === undefined ? 'nothing' : `${row.path} (${counts(row)})`);
    if (text(want) !== text(got)) differences.push(`row ${index + 1}: expected ${text(want)}, got ${text(got)}`);
  }
  return differences;
}
