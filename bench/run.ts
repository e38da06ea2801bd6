/**
 * `npm run bench [-- SUITE…] [--scale N] [--backend B] [--out FILE]`: runs the benchmark
 * suites and prints one report per suite, every ratio taken against a baseline measured
 * in the same run on the same machine. Suites are loaded only when selected, and the
 * agent-jobs suite only if some bench/jobs-*.ts or bench/jobs/*.ts exports
 * `runJobsBenchmarks(options: BenchOptions)` (see lib/bench-options.ts), so suites
 * can be added without touching this file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_USAGE, BenchArgumentError, parseBenchArguments, type SuiteName } from './lib/bench-arguments.js';
import type { BenchOptions } from './lib/bench-options.js';
import { findExportedFunction } from './lib/find-exported-function.js';
import { formatSuiteReport } from './lib/format-report.js';
import { describeMachine, formatMachine } from './lib/machine.js';
import { describeSourceVersion } from './lib/source-version.js';
import type { SuiteReport } from './lib/suite-report.js';

type SuiteRunner = (options: BenchOptions) => Promise<SuiteReport | SuiteReport[]>;

const BENCH_DIRECTORY = dirname(fileURLToPath(import.meta.url));

const SUITES: Record<SuiteName, () => Promise<SuiteRunner | undefined>> = {
  analytics: async () => (await import('./analytics-suite.js')).runAnalyticsBenchmarks,
  import: async () => (await import('./analytics-import-suite.js')).runImportBenchmarks,
  jobs: () => findExportedFunction<SuiteRunner>(BENCH_DIRECTORY, ['jobs-*.ts', 'jobs/*.ts'], 'runJobsBenchmarks'),
  docs: async () => (await import('./docs-suite.js')).runDocsBenchmarks,
  startup: async () => (await import('./startup-suite.js')).runStartupBenchmarks,
  verification: async () => (await import('./verification-suite.js')).runVerificationBenchmarks,
  agent: async () => (await import('./agent-suite.js')).runAgentBenchmarks,
};

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseBenchArguments(argv);
  } catch (error) {
    if (!(error instanceof BenchArgumentError)) throw error;
    process.stderr.write(`bench: ${error.message}\n\n${BENCH_USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(BENCH_USAGE);
    return 0;
  }
  const dataDir = join(BENCH_DIRECTORY, '.data');
  mkdirSync(dataDir, { recursive: true });
  const machine = describeMachine();
  const startedAt = new Date();
  const source = describeSourceVersion(BENCH_DIRECTORY);
  process.stdout.write(
    `Docwright benchmarks, ${startedAt.toISOString()}, ${source}\n  machine: ${formatMachine(machine)}\n  scale ${args.scale}, suites ${args.suites.join(', ')}, backends ${args.backends.join(', ')}\n\n`,
  );
  const reports: SuiteReport[] = [];
  const failures: Array<{ suite: string; message: string }> = [];
  const keep = (report: SuiteReport): void => {
    if (reports.includes(report)) return;
    reports.push(report);
    process.stdout.write(`${formatSuiteReport(report)}\n\n`);
    if (args.outFile !== undefined) writeResults(args.outFile, { startedAt, source, machine, arguments: args, reports, failures });
  };
  const options: BenchOptions = {
    scale: args.scale,
    backends: args.backends,
    dataDir,
    log: (message) => process.stderr.write(`  [${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(5)} s] ${message}\n`),
    onReport: keep,
  };
  for (const suite of args.suites) {
    const runner = await SUITES[suite]();
    if (runner === undefined) {
      process.stdout.write(`== ${suite}: skipped (no bench/${suite}-*.ts or bench/${suite}/*.ts exports its runner yet)\n\n`);
      continue;
    }
    try {
      const produced = await runner(options);
      for (const report of Array.isArray(produced) ? produced : [produced]) keep(report);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      failures.push({ suite, message });
      process.stdout.write(`== ${suite}: FAILED\n${message}\n\n`);
    }
  }
  const missed = reports.flatMap((report) => report.metrics.filter((item) => item.passed === false).map((item) => `${report.suite}: ${item.name}`));
  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  const endLoad = describeMachine().loadAverage;
  const failed = failures.length === 0 ? '' : ` FAILED suites: ${failures.map((failure) => failure.suite).join(', ')}.`;
  process.stdout.write(
    `Done in ${seconds.toFixed(0)} s (load average ${machine.loadAverage} at the start, ${endLoad} at the end). Targets missed: ${missed.length === 0 ? 'none' : missed.join('; ')}.${failed}\n`,
  );
  if (args.outFile !== undefined) writeResults(args.outFile, { startedAt, source, machine, arguments: args, seconds, reports, failures });
  return failures.length > 0 ? 1 : 0;
}

/** Rewritten after every report, so a stopped run still leaves what it measured. */
function writeResults(file: string, results: object): void {
  writeFileSync(file, JSON.stringify(results, null, 2));
}

process.exitCode = await main(process.argv.slice(2));
