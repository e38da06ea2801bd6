import type { BackendName } from './bench-arguments.js';
import type { SuiteReport } from './suite-report.js';

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
  /**
   * Hands over a finished report at once (e.g. one per backend), so it is printed and kept
   * even if a later part of the suite fails or the run is stopped. Reports given here may
   * be returned again at the end; they are printed once.
   */
  onReport?: (report: SuiteReport) => void;
}
