import { describe, expect, test } from 'vitest';
import { createProgressBar, type ProgressOutput } from '../../../src/analytics/import/progress-bar.js';
import { formatImportSummary } from '../../../src/analytics/import/format-import-summary.js';
import { formatBytes, formatDuration } from '../../../src/analytics/import/format-units.js';
import type { ImportSummary } from '../../../src/analytics/import/import-types.js';
import { ManualClock } from '../../../src/core/clock.js';

function capture(isTTY: boolean, columns = 100): ProgressOutput & { writes: string[] } {
  const writes: string[] = [];
  return { isTTY, columns, writes, write: (text: string) => writes.push(text) };
}

const MIB = 1024 * 1024;

describe('progress bar on a terminal', () => {
  test('redraws one line in place with bar, percentage, bytes, hits/s and ETA', () => {
    const clock = new ManualClock(0);
    const output = capture(true);
    const bar = createProgressBar(output, 100 * MIB, { clock });
    clock.advance(10_000);
    bar.update({ bytesRead: 25 * MIB, hits: 50_000 });
    expect(output.writes).toHaveLength(1);
    const line = output.writes[0] ?? '';
    expect(line.startsWith('\r')).toBe(true);
    expect(line.endsWith('\x1b[K')).toBe(true);
    const [, filled = '', empty = ''] = /\[(#*)(\.*)\]/.exec(line) ?? [];
    expect(filled.length + empty.length).toBeGreaterThanOrEqual(10);
    expect(filled.length / (filled.length + empty.length)).toBeCloseTo(0.25, 1);
    expect(line).toContain('25.0%');
    expect(line).toContain('25.0 MiB/100.0 MiB');
    expect(line).toContain('5,000 hits/s');
    // A quarter took 10 s, so three quarters take 30 s more.
    expect(line).toContain('ETA 30s');
  });

  test('throttles redraws to the interval (10 per second by default)', () => {
    const clock = new ManualClock(0);
    const output = capture(true);
    const bar = createProgressBar(output, 1000, { clock });
    for (let step = 1; step <= 100; step++) {
      clock.advance(10);
      bar.update({ bytesRead: step * 10, hits: step });
    }
    // One second of updates every 10 ms: the first, then one every 100 ms.
    expect(output.writes).toHaveLength(10);
  });

  test('finish draws the final state and ends the line; later updates are ignored', () => {
    const clock = new ManualClock(0);
    const output = capture(true);
    const bar = createProgressBar(output, 1000, { clock });
    bar.update({ bytesRead: 10, hits: 1 });
    clock.advance(20);
    bar.update({ bytesRead: 1000, hits: 7 });
    bar.finish();
    bar.update({ bytesRead: 1000, hits: 8 });
    expect(output.writes.at(-1)).toBe('\n');
    expect(output.writes.at(-2)).toContain('100.0%');
    expect(output.writes.at(-2)).toContain('7 hits');
    expect(output.writes).toHaveLength(3);
  });

  test('a total carried by the progress report replaces the one given at creation', () => {
    const clock = new ManualClock(0);
    const output = capture(true);
    const bar = createProgressBar(output, 0, { clock });
    bar.update({ bytesRead: 50, hits: 1, totalBytes: 200 });
    expect(output.writes[0]).toContain('25.0%');
    expect(output.writes[0]).toContain('50 B/200 B');
  });

  test('never writes a line wider than the terminal', () => {
    const clock = new ManualClock(0);
    const output = capture(true, 50);
    const bar = createProgressBar(output, 10 * 1024 * MIB, { clock });
    clock.advance(1000);
    bar.update({ bytesRead: 3 * 1024 * MIB, hits: 12_345_678 });
    const visible = (output.writes[0] ?? '').replace('\r', '').replace('\x1b[K', '');
    expect(visible.length).toBeLessThan(50);
  });
});

describe('progress without a terminal', () => {
  test('prints a plain line every few seconds, none for a short import', () => {
    const clock = new ManualClock(0);
    const output = capture(false);
    const bar = createProgressBar(output, 1000, { clock, plainIntervalMs: 5000 });
    for (let second = 1; second <= 12; second++) {
      clock.advance(1000);
      bar.update({ bytesRead: second * 50, hits: second * 10 });
    }
    bar.finish();
    expect(output.writes).toEqual([
      'import: 25.0%  250 B/1000 B  50 hits  10 hits/s  ETA 15s\n',
      'import: 50.0%  500 B/1000 B  100 hits  10 hits/s  ETA 10s\n',
    ]);
    expect(output.writes.join('')).not.toContain('\r');

    const quiet = capture(false);
    const short = createProgressBar(quiet, 1000, { clock });
    clock.advance(1000);
    short.update({ bytesRead: 1000, hits: 3 });
    short.finish();
    expect(quiet.writes).toEqual([]);
  });
});

describe('formatting', () => {
  test.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KiB'],
    [MIB * 200, '200.0 MiB'],
    [1024 * MIB * 1.25, '1.3 GiB'],
  ])('formatBytes(%i) = %s', (bytes, expected) => {
    expect(formatBytes(bytes)).toBe(expected);
  });

  test.each([
    [0, '0s'],
    [7.4, '7s'],
    [65, '1m05s'],
    [3725, '1h02m'],
  ])('formatDuration(%d) = %s', (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });

  test('the summary names every count, the malformed examples and the failed files', () => {
    const summary: ImportSummary = {
      files: 2,
      bytes: 3 * MIB,
      lines: 12_345,
      hits: 2_000,
      skippedNotPage: 10_000,
      notPages: { asset: 6_000, skippedPath: 1_000, redirect: 1_500, clientError: 1_000, serverError: 400, otherStatus: 0, method: 90, notRequest: 10 },
      malformed: 345,
      salvaged: 3,
      hitsWithoutUserAgent: 0,
      agentErrors: 0,
      accepted: 1_990,
      rejected: 10,
      rejectedByCode: { invalid_path: 4, timestamp_too_old: 6 },
      seconds: 4,
      malformedExamples: [{ file: 'access.log', line: 17, reason: 'unterminated quoted field', text: '1.2.3.4 - - "GET' }],
      failedFiles: [{ file: 'old.log.gz', message: 'stopped after line 9: unexpected end of file' }],
    };
    const text = formatImportSummary(summary);
    expect(text).toContain('Imported 2 files (3.0 MiB) in 4s.');
    expect(text).toMatch(/lines read\s+12,345/);
    expect(text).toMatch(/page hits sent\s+2,000 {2}\(500 hits\/s\)/);
    expect(text).toMatch(/accepted\s+1,990/);
    expect(text).toMatch(/rejected\s+10/);
    expect(text).toMatch(/not pages\s+10,000/);
    // Where the lines that are not pages went, and why hits were refused.
    expect(text).toMatch(/assets \(scripts, images, …\)\s+6,000/);
    expect(text).toMatch(/client errors \(4xx\)\s+1,000/);
    expect(text).toMatch(/server errors \(5xx\)\s+400/);
    expect(text).toMatch(/not GET or HEAD\s+90/);
    expect(text).not.toContain('other status');
    expect(text).toMatch(/timestamp_too_old\s+6/);
    expect(text).toMatch(/salvaged lines\s+3/);
    expect(text).toContain('raise DOCWRIGHT_ANALYTICS_RETENTION_DAYS');
    expect(text).not.toContain('no user agent');
    expect(text).toMatch(/malformed lines\s+345/);
    expect(text).toContain('access.log:17  unterminated quoted field: "1.2.3.4 - - \\"GET"');
    expect(text).toContain('… and 344 more');
    expect(text).toContain('could not finish old.log.gz: stopped after line 9: unexpected end of file');
  });
});
