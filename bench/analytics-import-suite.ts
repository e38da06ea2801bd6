/**
 * The `import` suite: memory and speed of the access-log import (bench/import-memory.ts)
 * on a generated 1 GiB combined log (× scale), against plain node:readline reading the
 * same file in the same run. Each side runs in a fresh process so its peak RSS is its own.
 */
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { BenchOptions } from './lib/bench-options.js';
import { runInChild } from './lib/run-in-child.js';
import { metric, type SuiteReport } from './lib/suite-report.js';
import { generateAccessLog } from './generate-access-log.js';
import { RSS_TARGET_MB, type ImportMemoryBenchmarkResult } from './import-memory.js';

const FULL_SIZE_BYTES = 1024 * 1024 * 1024;
const MB = 1024 * 1024;

export interface ReadlineBaseline {
  seconds: number;
  lines: number;
  peakRssMb: number;
}

/** The floor any line-by-line import stands on: reading the file's lines and nothing else. */
export async function measureReadlineBaseline(file: string): Promise<ReadlineBaseline> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const startedAt = performance.now();
  let lines = 0;
  try {
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (line.length >= 0) lines++;
  } finally {
    clearInterval(timer);
  }
  return { seconds: (performance.now() - startedAt) / 1000, lines, peakRssMb: Math.max(peak, process.memoryUsage.rss()) / MB };
}

export async function runImportBenchmarks(options: BenchOptions): Promise<SuiteReport> {
  const sizeBytes = Math.round(FULL_SIZE_BYTES * options.scale);
  const file = join(options.dataDir, `access-${sizeBytes}.log`);
  if (!existsSync(file)) {
    options.log(`import: generating a ${(sizeBytes / MB).toFixed(0)} MiB combined log at ${file} (kept for later runs)`);
    await generateAccessLog({ file, sizeBytes, seed: 1 });
  }
  options.log('import: importing with a discarding send (fresh process)');
  const result = await runInChild<ImportMemoryBenchmarkResult>(new URL('./import-memory.ts', import.meta.url), 'runImportMemoryBenchmark', {
    sizeBytes,
    dataDir: options.dataDir,
  });
  options.log('import: reading the same file with node:readline (fresh process)');
  const baseline = await runInChild<ReadlineBaseline>(new URL(import.meta.url), 'measureReadlineBaseline', file);
  const summary = result.summary;
  return {
    suite: 'import',
    title: `import: ${(result.sizeBytes / MB).toFixed(0)} MiB combined access log (${summary.lines.toLocaleString('en-US')} lines, ${summary.hits.toLocaleString('en-US')} page hits)`,
    context: [
      'importLogs() with a send that JSON-serializes each 1,000-hit batch as the CLI would, then discards it (no server).',
      "Baseline: node:readline counting the same file's lines; each side in a fresh Node process.",
    ],
    metrics: [
      metric({
        name: 'peak RSS during import',
        value: result.peakRssMb,
        unit: 'MiB',
        baseline: { name: 'readline', value: baseline.peakRssMb },
        target: { of: 'value', comparison: 'at-most', limit: RSS_TARGET_MB },
      }),
      metric({
        name: 'import throughput',
        value: result.megabytesPerSecond,
        unit: 'MiB/s',
        baseline: { name: 'readline', value: result.sizeBytes / MB / baseline.seconds },
      }),
      metric({ name: 'page hits parsed and batched', value: result.hitsPerSecond, unit: 'hits/s' }),
      metric({ name: 'lines', value: result.linesPerSecond, unit: 'lines/s', baseline: { name: 'readline', value: baseline.lines / baseline.seconds } }),
    ],
    notes: [`RSS before the import: ${result.baselineRssMb.toFixed(1)} MiB; ${summary.malformed} malformed lines.`],
  };
}
