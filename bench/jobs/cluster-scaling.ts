import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { prefixedOutput } from '../../scripts/cluster/prefixed-output.js';
import { startCluster, type Cluster } from '../../scripts/cluster/start-cluster.js';
import type { BenchPostgres } from '../lib/embedded-postgres.js';
import { percentile } from '../lib/percentiles.js';
import { pollAcrossProcesses, spreadingClient, type SpreadPollFigure } from './cluster-load.js';
import { JobClient } from './job-client.js';
import { measurePickupLatency } from './pickup-latency.js';
import type { LoadSettings } from './poll-throughput.js';
import type { TimedFakeModel } from './timed-fake-model.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../bin/docwright.js', import.meta.url));

export interface ScalingConfiguration {
  api: number;
  workers: number;
}

export interface ScalingWorkload {
  poll: LoadSettings;
  pickupJobs: number;
  /** Jobs queued at once for the drain figure. */
  drainJobs: number;
  /** The model's answer time in the drain: what a worker slot is busy with per job. */
  drainModelMs: number;
}

export interface ScalingResult {
  configuration: ScalingConfiguration;
  poll: SpreadPollFigure;
  /** One bare Fastify process under the same load, in rounds alternating with `poll`'s. */
  bare: SpreadPollFigure;
  /** create sent → first model request, ms, p50 and p99. */
  pickup: { p50: number; p99: number };
  /** `drainJobs` created together → the last one completed. */
  drain: { jobs: number; seconds: number; jobsPerSecond: number };
  /** 1-minute load average at the start and end of this configuration. */
  load: [number, number];
}

/**
 * One configuration of the scaling benchmark: a cluster as `npm run cluster` starts it
 * (`docwright serve --no-worker` × api, `docwright worker` × workers, each worker at the
 * default concurrency of 2) on a fresh database of the benchmark's PostgreSQL, then three
 * figures: idle poll throughput spread over the API processes, pickup latency of jobs
 * created through one process and followed through another, and how fast the workers
 * drain a burst of jobs whose model takes `drainModelMs` to answer.
 */
export async function measureScalingConfiguration(options: {
  configuration: ScalingConfiguration;
  postgres: BenchPostgres;
  model: TimedFakeModel;
  bare: { url: string; pid: number };
  /** A small docs repository (the project's, cloned by every job). */
  repository: string;
  directory: string;
  workload: ScalingWorkload;
  cpuProfileDirectory: string | undefined;
  log: (message: string) => void;
}): Promise<ScalingResult> {
  const { configuration, model, workload, log } = options;
  const name = `${configuration.api}x${configuration.workers}`;
  const loadBefore = loadavg()[0] ?? Number.NaN;
  const databaseUrl = await options.postgres.createDatabase(`docwright_scaling_${name}_${Date.now()}`);
  const cluster = await startCluster({
    api: configuration.api,
    workers: configuration.workers,
    port: 0,
    proxy: false,
    directory: join(options.directory, name),
    databaseUrl,
    ownProcessGroups: false,
    environment: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DOCWRIGHT_MODEL: 'openai-compatible:fake',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
      DOCWRIGHT_MODEL_RETRIES: '0',
      DOCWRIGHT_RATE_LIMIT: '1000000',
      DOCWRIGHT_LOG_LEVEL: 'warn',
    },
    // The processes' warnings (no dashboard user yet, …) go to stderr with the progress lines.
    output: prefixedOutput(process.stderr, false),
    ...(options.cpuProfileDirectory === undefined
      ? {}
      : { nodeOptions: ['--cpu-prof', '--cpu-prof-dir', join(options.cpuProfileDirectory, `scaling-${name}`)] }),
  });
  const clients: JobClient[] = [];
  try {
    const { projectId, apiKey } = await createProject(cluster, options.repository);
    clients.push(...cluster.apis.map((api) => new JobClient(api.url, projectId, apiKey)));
    const clientAt = (index: number): JobClient => {
      const client = clients[index % clients.length];
      if (client === undefined) throw new Error('the cluster has no API process');
      return client;
    };
    const first = clientAt(0);

    model.expect('scaling-poll', () => ({ text: 'Nothing to change.' }));
    const polled = await first.create('[bench:scaling-poll] Check the quickstart.');
    await first.waitForSettled(polled.id);
    log(`jobs scaling ${name}: poll throughput over ${configuration.api} API process(es)`);
    const { docwright: poll, bare } = await pollAcrossProcesses({
      apis: cluster.apis,
      bare: options.bare,
      path: `/v2/agent/${projectId}/job/${polled.id}`,
      apiKey,
      settings: workload.poll,
      log,
    });

    log(`jobs scaling ${name}: pickup latency over ${workload.pickupJobs} jobs`);
    const pickup = await measurePickupLatency({
      client: spreadingClient(clients),
      model,
      jobs: workload.pickupJobs,
      repository: options.repository,
      cloneDirectory: join(options.directory, `${name}-raw-clone`),
      log,
    });

    log(`jobs scaling ${name}: draining ${workload.drainJobs} jobs with a ${workload.drainModelMs} ms model`);
    model.expect('scaling-drain', () => ({ text: 'Nothing to change.', delayMs: workload.drainModelMs }));
    const startedAt = performance.now();
    const created = await Promise.all(Array.from({ length: workload.drainJobs }, (_, index) => clientAt(index).create(`[bench:scaling-drain] Job ${index}.`)));
    // Polled, not followed: a key may hold 20 event streams at once, and this is 40 jobs.
    const settled = await Promise.all(created.map((job, index) => pollUntilSettled(clientAt(index + 1), job.id)));
    const seconds = (performance.now() - startedAt) / 1000;
    const failed = settled.filter((job) => job.status !== 'completed');
    if (failed.length > 0) throw new Error(`${failed.length} drain job(s) did not complete: ${failed.map((job) => job.error?.code ?? job.status).join(', ')}`);
    model.forget('scaling-drain');
    model.forget('scaling-poll');
    return {
      configuration,
      poll,
      bare,
      pickup: { p50: percentile(pickup.toFirstModelRequest, 50), p99: percentile(pickup.toFirstModelRequest, 99) },
      drain: { jobs: workload.drainJobs, seconds, jobsPerSecond: workload.drainJobs / seconds },
      load: [loadBefore, loadavg()[0] ?? Number.NaN],
    };
  } finally {
    for (const client of clients) client.close();
    await cluster.stop(60_000);
  }
}

/** Polls every 50 ms until the job is no longer active (two minutes at most). */
async function pollUntilSettled(client: JobClient, jobId: string): Promise<{ status: string; error?: { code: string } }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const job = await client.get(jobId);
    if (job.status !== 'active') return job;
    if (Date.now() > deadline) throw new Error(`drain job ${jobId} still active after two minutes`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A local-forge project and an admin key, made with the CLI against the cluster's database. */
async function createProject(cluster: Cluster, repository: string): Promise<{ projectId: string; apiKey: string }> {
  const environment = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DOCWRIGHT_LOG_LEVEL: 'warn', ...cluster.cliEnvironment };
  const docwright = async (args: string[]): Promise<Record<string, string>> =>
    JSON.parse((await run(process.execPath, [CLI, ...args], { env: environment })).stdout) as Record<string, string>;
  const project = await docwright(['projects', 'create', '--name', 'Scaling', '--repository', repository, '--json']);
  const projectId = project.id ?? '';
  const key = await docwright(['keys', 'create', '--project', projectId, '--json']);
  return { projectId, apiKey: key.key ?? '' };
}
