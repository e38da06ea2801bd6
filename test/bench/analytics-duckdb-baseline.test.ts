import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsDataset, FULL_DATASET } from '../../bench/analytics-dataset.js';
import { loadDuckDbHits, type DuckDbHits } from '../../bench/analytics-duckdb-baseline.js';
import { writeRawRowsCsv } from '../../bench/analytics-raw-rows.js';
import { compareAnswers, type VisitorsAnswer, type VisitorsQuestion } from '../../bench/analytics-visitors-answer.js';

const directory = mkdtempSync(join(tmpdir(), 'docwright-duckdb-'));
const dataset = new AnalyticsDataset({ ...FULL_DATASET, hits: 30_000, visitors: 3_000, pages: 300 });
let duck: DuckDbHits;

beforeAll(async () => {
  duck = await loadDuckDbHits(await writeRawRowsCsv(dataset, directory));
});
afterAll(() => {
  duck?.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The answer straight from its definition, with sets in memory. */
function reference(question: VisitorsQuestion): VisitorsAnswer {
  const site = { human: new Set<number>(), ai: new Set<number>(), total: new Set<number>() };
  const pages = new Map<string, typeof site>();
  for (const hit of dataset.hits()) {
    if (hit.timestamp < question.from || hit.timestamp >= question.to) continue;
    let page = pages.get(hit.path);
    if (page === undefined) pages.set(hit.path, (page = { human: new Set(), ai: new Set(), total: new Set() }));
    for (const sets of [site, page]) {
      sets[hit.visitorClass].add(hit.visitor);
      sets.total.add(hit.visitor);
    }
  }
  const rows = [...pages].map(([path, sets]) => ({ path, human: sets.human.size, ai: sets.ai.size, total: sets.total.size }));
  rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    totals: { human: site.human.size, ai: site.ai.size, total: site.total.size },
    visitors: rows.slice(question.offset, question.offset + question.limit),
    hasMore: rows.length > question.offset + question.limit,
  };
}

describe('the DuckDB baseline', () => {
  test('loads every row', () => {
    expect(duck.rows).toBe(30_000);
  });

  test.each([
    ['the whole range, first page', { from: dataset.spec.start, to: dataset.end, limit: 50, offset: 0 }],
    ['a week, a later page', { from: dataset.spec.start + 3 * 86_400_000, to: dataset.spec.start + 10 * 86_400_000, limit: 25, offset: 100 }],
    ['the last page', { from: dataset.spec.start, to: dataset.end, limit: 250, offset: 250 }],
  ])('answers exactly as the definition does: %s', async (_name, question) => {
    const expected = reference(question);
    const actual = await duck.visitors(question);
    expect(compareAnswers(expected, actual)).toEqual([]);
    expect(actual).toEqual(expected);
  });
});

describe('compareAnswers', () => {
  test('names the differences', () => {
    const answer: VisitorsAnswer = { totals: { human: 2, ai: 1, total: 3 }, visitors: [{ path: '/a', human: 2, ai: 1, total: 3 }], hasMore: false };
    expect(compareAnswers(answer, structuredClone(answer))).toEqual([]);
    const changed = structuredClone(answer);
    changed.totals.ai = 0;
    changed.visitors[0]!.path = '/b';
    changed.hasMore = true;
    expect(compareAnswers(answer, changed)).toEqual([
      'totals: expected human 2, ai 1, total 3, got human 2, ai 0, total 3',
      'hasMore: expected false, got true',
      'row 1: expected /a (human 2, ai 1, total 3), got /b (human 2, ai 1, total 3)',
    ]);
  });
});
