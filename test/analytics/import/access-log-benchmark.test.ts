import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { generateAccessLog } from '../../../bench/generate-access-log.js';
import { runImportMemoryBenchmark } from '../../../bench/import-memory.js';
import { parseCombinedLine } from '../../../src/analytics/import/combined-log-parser.js';
import { importLogs } from '../../../src/analytics/import/import-logs.js';
import { isGzipFile } from '../../../src/analytics/import/log-file-stream.js';

const directory = mkdtempSync(join(tmpdir(), 'docwright-bench-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('generateAccessLog', () => {
  test('is deterministic per seed and reaches the requested size', async () => {
    const size = 300_000;
    const first = await generateAccessLog({ file: join(directory, 'a.log'), sizeBytes: size, seed: 7 });
    const again = await generateAccessLog({ file: join(directory, 'b.log'), sizeBytes: size, seed: 7 });
    const other = await generateAccessLog({ file: join(directory, 'c.log'), sizeBytes: size, seed: 8 });
    const bytes = readFileSync(first.file);
    expect(readFileSync(again.file).equals(bytes)).toBe(true);
    expect(readFileSync(other.file).equals(bytes)).toBe(false);
    expect(bytes.length).toBe(first.bytes);
    expect(bytes.length).toBeGreaterThanOrEqual(size);
    expect(bytes.length).toBeLessThan(size + 1000);
    expect(
      bytes
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== ''),
    ).toHaveLength(first.lines);
  });

  test('writes valid combined lines with a realistic mix of pages, assets and clients', async () => {
    const log = await generateAccessLog({ file: join(directory, 'mix.log'), sizeBytes: 2_000_000, seed: 3 });
    const lines = readFileSync(log.file, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    const records = lines.map((line) => parseCombinedLine(line));
    expect(records.every((record) => record.ok)).toBe(true);
    const text = lines.join('\n');
    for (const marker of ['ChatGPT-User', 'GPTBot', 'Googlebot', '.md HTTP/1.1', '/llms.txt', '.woff2', '" 304 ', '" 404 ', '"POST ', '2001:db8:']) {
      expect(text).toContain(marker);
    }
    const summary = await importLogs({ files: [log.file], send: async (hits) => ({ accepted: hits.length, rejected: 0 }) });
    expect(summary.malformed).toBe(0);
    expect(summary.hits / summary.lines).toBeGreaterThan(0.2);
    expect(summary.skippedNotPage / summary.lines).toBeGreaterThan(0.2);
  });

  test('can write gzip, holding the same content', async () => {
    const plain = await generateAccessLog({ file: join(directory, 'p.log'), sizeBytes: 100_000, seed: 5 });
    const zipped = await generateAccessLog({ file: join(directory, 'z.log.gz'), sizeBytes: 100_000, seed: 5, gzip: true });
    expect(await isGzipFile(zipped.file)).toBe(true);
    expect(gunzipSync(readFileSync(zipped.file)).equals(readFileSync(plain.file))).toBe(true);
  });
});

describe('runImportMemoryBenchmark', () => {
  test('generates the log once, imports it, and reports memory and speed', async () => {
    const dataDir = join(directory, 'data');
    const result = await runImportMemoryBenchmark({ sizeBytes: 3_000_000, dataDir });
    expect(result.file.startsWith(dataDir)).toBe(true);
    expect(result.summary.hits).toBeGreaterThan(1000);
    expect(result.summary.accepted).toBe(result.summary.hits);
    expect(result.peakRssMb).toBeGreaterThanOrEqual(result.baselineRssMb);
    expect(result.withinTarget).toBe(result.peakRssMb <= 200);
    expect(result.hitsPerSecond).toBeCloseTo(result.summary.hits / result.seconds, 5);
    expect(result.payloadBytes).toBeGreaterThan(result.summary.hits * 50);

    const generatedAt = statSync(result.file).mtimeMs;
    const second = await runImportMemoryBenchmark({ sizeBytes: 3_000_000, dataDir });
    expect(statSync(second.file).mtimeMs).toBe(generatedAt);
    expect(second.summary.hits).toBe(result.summary.hits);
  });
});
