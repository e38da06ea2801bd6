/**
 * Memory benchmark of the access-log import: imports a large generated combined log
 * (1 GiB by default, generated once into bench/.data/) with a `send` that serializes
 * each batch as the CLI would and then discards it, sampling resident memory. The import
 * streams, so peak RSS must stay flat however large the file; the target is 200 MiB.
 *
 *   npx tsx bench/import-memory.ts [SIZE_MB]
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importLogs } from '../src/analytics/import/import-logs.js';
import type { ImportSummary } from '../src/analytics/import/import-types.js';
import { generateAccessLog } from './generate-access-log.js';

export const RSS_TARGET_MB = 200;
const DEFAULT_DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), '.data');
const MB = 1024 * 1024;

export interface ImportMemoryBenchmarkOptions {
  sizeBytes: number;
  /** Where the generated log is kept between runs. Default bench/.data. */
  dataDir?: string;
  /** Progress lines; default silent. */
  log?: (message: string) => void;
}

export interface ImportMemoryBenchmarkResult {
  file: string;
  sizeBytes: number;
  /** Resident memory before the import started. */
  baselineRssMb: number;
  /** Highest resident memory seen during the import. */
  peakRssMb: number;
  targetRssMb: number;
  withinTarget: boolean;
  seconds: number;
  hitsPerSecond: number;
  linesPerSecond: number;
  megabytesPerSecond: number;
  /** JSON bytes the batches would have put on the wire. */
  payloadBytes: number;
  summary: ImportSummary;
}

export async function runImportMemoryBenchmark(options: ImportMemoryBenchmarkOptions): Promise<ImportMemoryBenchmarkResult> {
  const log = options.log ?? (() => {});
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  const file = join(dataDir, `access-${options.sizeBytes}.log`);
  if (!existsSync(file)) {
    log(`generating ${(options.sizeBytes / MB).toFixed(0)} MiB combined log at ${file} (once; kept for later runs)`);
    await generateAccessLog({ file, sizeBytes: options.sizeBytes, seed: 1 });
  }

  const sampler = new RssSampler();
  const baselineRssMb = sampler.sample();
  sampler.start();
  let payloadBytes = 0;
  const startedAt = performance.now();
  let summary: ImportSummary;
  try {
    summary = await importLogs({
      files: [file],
      send: async (hits) => {
        payloadBytes += Buffer.byteLength(JSON.stringify({ events: hits }));
        return { accepted: hits.length, rejected: 0 };
      },
      onProgress: () => sampler.sample(),
    });
  } finally {
    sampler.stop();
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const peakRssMb = sampler.peak;
  return {
    file,
    sizeBytes: summary.bytes,
    baselineRssMb,
    peakRssMb,
    targetRssMb: RSS_TARGET_MB,
    withinTarget: peakRssMb <= RSS_TARGET_MB,
    seconds,
    hitsPerSecond: summary.hits / seconds,
    linesPerSecond: summary.lines / seconds,
    megabytesPerSecond: summary.bytes / MB / seconds,
    payloadBytes,
    summary,
  };
}

/** Samples on a timer and on every progress report, so short peaks between ticks are still likely to be seen. */
class RssSampler {
  peak = 0;
  private timer: NodeJS.Timeout | undefined;

  sample(): number {
    const rssMb = process.memoryUsage.rss() / MB;
    if (rssMb > this.peak) this.peak = rssMb;
    return rssMb;
  }

  start(): void {
    this.timer = setInterval(() => this.sample(), 50);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}

function report(result: ImportMemoryBenchmarkResult): string {
  const { summary } = result;
  return [
    `import-memory: ${(result.sizeBytes / MB).toFixed(0)} MiB, ${summary.lines.toLocaleString('en-US')} lines, ${summary.hits.toLocaleString('en-US')} page hits, ${summary.malformed} malformed`,
    `  time        ${result.seconds.toFixed(1)} s (${result.megabytesPerSecond.toFixed(1)} MiB/s, ${Math.round(result.linesPerSecond).toLocaleString('en-US')} lines/s)`,
    `  hits/s      ${Math.round(result.hitsPerSecond).toLocaleString('en-US')}`,
    `  RSS         baseline ${result.baselineRssMb.toFixed(1)} MiB, peak ${result.peakRssMb.toFixed(1)} MiB (target ≤ ${result.targetRssMb} MiB): ${result.withinTarget ? 'OK' : 'OVER TARGET'}`,
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const sizeMb = Number(process.argv[2] ?? 1024);
  if (!(sizeMb > 0)) {
    process.stderr.write('usage: npx tsx bench/import-memory.ts [SIZE_MB]\n');
    process.exit(2);
  }
  const result = await runImportMemoryBenchmark({
    sizeBytes: Math.round(sizeMb * MB),
    log: (message) => process.stderr.write(`${message}\n`),
  });
  process.stdout.write(`${report(result)}\n`);
  if (!result.withinTarget) process.exitCode = 1;
}
