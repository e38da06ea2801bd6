import type { BackendName } from './bench-arguments.js';

/**
 * What bench/run.ts hands every suite, including the agent-jobs suite that plugs in as
 * `export async function runJobsBenchmarks(options: BenchOptions): Promise<SuiteReport | SuiteReport[]>`
 * from any `bench/jobs-*.ts` file.
 */
export interface BenchOptions {
  /** 1 = full-size workloads. Suites scale their data and iteration counts by it. */
  scale: number;
  backends: readonly BackendName[];
  /** Generated data is kept here between runs (gitignored bench/.data). */
  dataDir: string;
  /** Progress for the person waiting; goes to stderr, never into the report. */
  log: (message: string) => void;
}
