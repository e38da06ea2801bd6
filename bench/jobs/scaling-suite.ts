import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchPostgres } from '../lib/embedded-postgres.js';
import type { SuiteReport } from '../lib/suite-report.js';
import { startBareFastifyServer } from './bare-fastify-server.js';
import { measureScalingConfiguration, type ScalingResult, type ScalingWorkload } from './cluster-scaling.js';
import { generateDocsRepository } from './generate-docs-repository.js';
import { scalingReport } from './scaling-report.js';
import type { TimedFakeModel } from './timed-fake-model.js';

const CONFIGURATIONS = [
  { api: 1, workers: 1 },
  { api: 1, workers: 2 },
  { api: 2, workers: 1 },
  { api: 2, workers: 2 },
];

/** Full scale: 10 s poll rounds, 200 pickup jobs, a burst of 40 jobs on a 500 ms model. */
export function scalingWorkload(scale: number): ScalingWorkload {
  return {
    poll: { connections: 10, pipelining: 1, seconds: Math.max(3, Math.round(10 * scale)), rounds: 3 },
    pickupJobs: Math.max(20, Math.round(200 * scale)),
    drainJobs: Math.max(16, Math.round(40 * scale)),
    drainModelMs: 500,
  };
}

/**
 * 1 and 2 API processes × 1 and 2 workers on PostgreSQL (method: docs/benchmarks-jobs.md,
 * "Scaling"). Runs after the per-backend reports, on the same embedded PostgreSQL.
 */
export async function runScalingBenchmark(options: {
  postgres: BenchPostgres;
  model: TimedFakeModel;
  scale: number;
  root: string;
  cpuProfileDirectory: string | undefined;
  log: (message: string) => void;
}): Promise<SuiteReport> {
  const workload = scalingWorkload(options.scale);
  rmSync(options.root, { recursive: true, force: true });
  mkdirSync(options.root, { recursive: true });
  const repository = generateDocsRepository(join(options.root, 'docs-small'), 10);
  const bare = await startBareFastifyServer();
  const results: ScalingResult[] = [];
  try {
    for (const configuration of CONFIGURATIONS) {
      results.push(
        await measureScalingConfiguration({
          configuration,
          postgres: options.postgres,
          model: options.model,
          bare,
          repository: repository.directory,
          directory: join(options.root, 'clusters'),
          workload,
          cpuProfileDirectory: options.cpuProfileDirectory,
          log: options.log,
        }),
      );
    }
  } finally {
    await bare.stop();
  }
  return scalingReport({ results, workload });
}
