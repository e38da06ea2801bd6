import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runImportBenchmarks } from '../../bench/analytics-import-suite.js';
import { runAnalyticsBenchmarks } from '../../bench/analytics-suite.js';
import type { BenchOptions } from '../../bench/lib/bench-options.js';

const dataDir = mkdtempSync(join(tmpdir(), 'docwright-bench-suites-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const options = (scale: number): BenchOptions => ({ scale, backends: ['sqlite'], dataDir, log: () => {} });

describe('the analytics suite at a tiny scale', () => {
  test('measures ingest and query on a real server against both baselines, and the answers agree', async () => {
    const [report, ...others] = await runAnalyticsBenchmarks(options(0.0005));
    expect(others).toEqual([]);
    expect(report?.title).toContain('SQLite: 5,000 hits, 500 visitors');
    const byName = new Map(report?.metrics.map((item) => [item.name, item]));
    const ingest = byName.get('ingest, HTTP, first 5,000 hits');
    expect(ingest?.value).toBeGreaterThan(0);
    expect(ingest?.baseline?.name).toBe('raw better-sqlite3 insert');
    expect(ingest?.ratio).toBeCloseTo((ingest?.value ?? 0) / (ingest?.baseline?.value ?? 1), 10);
    expect(byName.get('ingest until queryable (all 5,000 hits + first exact answer)')?.target).toEqual({ of: 'ratio', comparison: 'at-least', limit: 0.3 });
    const first = byName.get('first exact visitors answer, from the last hit accepted');
    expect(first?.value).toBeGreaterThan(0);
    expect(first?.target).toEqual({ of: 'value', comparison: 'at-most', limit: 2_000 });
    expect(first?.note).toMatch(/hits still unfolded when it was asked/);
    expect(byName.get('fold catch-up, from the last hit accepted until nothing is pending')?.value).toBeGreaterThan(0);
    const query = byName.get('visitors query p50 once folded (30 days, totals + top 50)');
    expect(query?.baseline?.name).toBe('DuckDB');
    expect(query?.target).toEqual({ of: 'ratio', comparison: 'at-most', limit: 2 });
    expect(byName.get('visitors query p50 once folded, ceiling')?.target).toEqual({ of: 'value', comparison: 'at-most', limit: 100 });
    // A live site: new hits after the fold, each answer checked to count their visitors exactly (the suite throws otherwise).
    const live = byName.get("visitors query p50, a live site (2,000 new hits on the range's last day)");
    expect(live?.value).toBeGreaterThan(0);
    expect(live?.note).toMatch(/every answer counts the new visitors exactly/);
    // The report endpoints, each p50 and p95 against DuckDB's visitors answer, with the caveat beside it.
    for (const endpoint of ['views', 'agents', 'pages', 'agent-errors', 'summary']) {
      for (const quantile of ['p50', 'p95']) {
        const timing = byName.get(`report /${endpoint} ${quantile}`);
        expect(timing?.value).toBeGreaterThan(0);
        expect(timing?.baseline?.name).toBe('DuckDB visitors');
        expect(timing?.note).toMatch(/different, simpler question/);
      }
    }
    expect(report?.notes).toContainEqual(expect.stringMatching(/^accepted 5,000, rejected 0;/));
    expect(report?.notes).toContainEqual(expect.stringMatching(/^answers agree: .*total 500\)/));
    expect(report?.notes).toContain('the first answer (hits still unfolded) agrees with DuckDB too.');
    // The server's data and the raw-insert database are removed; the reusable CSV and request bodies stay.
    expect(readdirSync(dataDir).filter((name) => name.endsWith('.csv'))).toHaveLength(1);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('analytics-bodies-') && name.endsWith('.bin'))).toHaveLength(1);
    expect(readdirSync(dataDir)).not.toContain('raw-insert-baseline.sqlite');
  }, 120_000);
});

describe('the import suite at a tiny scale', () => {
  test('imports a generated log in a fresh process and compares it with readline', async () => {
    const report = await runImportBenchmarks(options(0.001));
    const byName = new Map(report.metrics.map((item) => [item.name, item]));
    const rss = byName.get('peak RSS during import');
    expect(rss?.value).toBeGreaterThan(20);
    expect(rss?.passed).toBe((rss?.value ?? Infinity) <= 200);
    expect(byName.get('import throughput')?.baseline?.name).toBe('readline');
    expect(byName.get('page hits parsed and batched')?.value).toBeGreaterThan(0);
    expect(report.title).toMatch(/^import: 1 MiB combined access log \([\d,]+ lines, [\d,]+ page hits\)$/);
  }, 60_000);
});
