import { describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseBenchArguments } from '../../bench/lib/bench-arguments.js';
import { formatSuiteReport } from '../../bench/lib/format-report.js';
import { percentile, summarize } from '../../bench/lib/percentiles.js';
import { metric } from '../../bench/lib/suite-report.js';
import { timeRepeated } from '../../bench/lib/timing.js';

describe('percentile', () => {
  test('interpolates between ranks and ignores input order', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([10, 20], 0)).toBe(10);
    expect(percentile([10, 20], 100)).toBe(20);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 95)).toBe(10.5);
    expect(() => percentile([], 50)).toThrow();
    expect(summarize([3, 1, 2])).toEqual({ count: 3, min: 1, p50: 2, p95: 2.9, max: 3, mean: 2 });
  });

  test('timeRepeated drops the warm-up runs and keeps the last result', async () => {
    let calls = 0;
    const timed = await timeRepeated(() => ++calls, { warmup: 2, iterations: 3 });
    expect(calls).toBe(5);
    expect(timed.samples).toHaveLength(3);
    expect(timed.lastResult).toBe(5);
  });
});

describe('metric', () => {
  test('derives the ratio against the baseline and checks the target', () => {
    const rate = metric({
      name: 'ingest',
      value: 30,
      unit: 'hits/s',
      baseline: { name: 'raw', value: 100 },
      target: { of: 'ratio', comparison: 'at-least', limit: 0.3 },
    });
    expect(rate.ratio).toBeCloseTo(0.3);
    expect(rate.passed).toBe(true);
    const slow = metric({
      name: 'query',
      value: 300,
      unit: 'ms',
      baseline: { name: 'duckdb', value: 100 },
      target: { of: 'ratio', comparison: 'at-most', limit: 2 },
    });
    expect(slow.ratio).toBe(3);
    expect(slow.passed).toBe(false);
    expect(metric({ name: 'q', value: 501, unit: 'ms', target: { of: 'value', comparison: 'at-most', limit: 500 } }).passed).toBe(false);
    expect(metric({ name: 'plain', value: 1, unit: 'ms' })).toEqual({ name: 'plain', value: 1, unit: 'ms' });
  });

  test('is printed as an aligned table with ratio, target and verdict', () => {
    const text = formatSuiteReport({
      suite: 'analytics',
      title: 'analytics on sqlite',
      context: ['10 hits'],
      metrics: [
        metric({
          name: 'ingest rate',
          value: 12_345.6,
          unit: 'hits/s',
          baseline: { name: 'raw insert', value: 41_152 },
          target: { of: 'ratio', comparison: 'at-least', limit: 0.3 },
        }),
        metric({ name: 'query p50', value: 812, unit: 'ms', target: { of: 'value', comparison: 'at-most', limit: 500 }, note: 'slow disk' }),
      ],
      notes: ['answers agree'],
    });
    expect(text).toContain('== analytics on sqlite');
    expect(text).toMatch(/ingest rate\s+12,346 hits\/s\s+raw insert: 41,152 hits\/s\s+0\.30×\s+≥ 0\.3×\s+ok/);
    expect(text).toMatch(/query p50\s+812 ms\s+≤ 500 ms\s+MISSED/);
    expect(text).toContain('* query p50: slow disk');
    expect(text).toContain('* answers agree');
  });
});

describe('bench arguments', () => {
  test('select suites, scale, backends and an output file', () => {
    expect(parseBenchArguments([])).toMatchObject({
      suites: ['analytics', 'import', 'jobs', 'docs', 'startup', 'verification', 'agent'],
      scale: 1,
      backends: ['sqlite', 'postgres', 'clickhouse'],
    });
    expect(parseBenchArguments(['--backend', 'both']).backends).toEqual(['sqlite', 'postgres']);
    expect(parseBenchArguments(['--backend', 'clickhouse']).backends).toEqual(['clickhouse']);
    expect(parseBenchArguments(['docs', '--scale', '0.1'])).toMatchObject({ suites: ['docs'], scale: 0.1 });
    expect(parseBenchArguments(['jobs', 'analytics', '--scale', '0.1', '--backend=sqlite', '--out', 'r.json'])).toEqual({
      suites: ['jobs', 'analytics'],
      scale: 0.1,
      backends: ['sqlite'],
      outFile: 'r.json',
      help: false,
    });
    for (const wrong of [['--scale', '0'], ['--scale', '2'], ['--scale'], ['nope'], ['--backend', 'mysql'], ['--fast']]) {
      expect(() => parseBenchArguments(wrong)).toThrow();
    }
  });

  test('npm run bench rejects an unknown suite with its usage, and prints help', () => {
    const run = fileURLToPath(new URL('../../bench/run.ts', import.meta.url));
    const wrong = spawnSync(process.execPath, ['--import', 'tsx', run, 'nope'], { encoding: 'utf8' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('unknown suite "nope"');
    const help = spawnSync(process.execPath, ['--import', 'tsx', run, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--scale N');
  });
});
