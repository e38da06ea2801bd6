/**
 * The `jobs` suite of `npm run bench`: agent-job overhead, pickup latency and poll
 * throughput of a real Docwright server (API and worker in one child process, as
 * `docwright serve` runs), each against a baseline measured in the same run. Method and
 * figures: docs/benchmarks-jobs.md.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { isDatabaseBackend, type DatabaseBackendName as BackendName } from './lib/bench-arguments.js';
import type { BenchOptions } from './lib/bench-options.js';
import { startBenchPostgres, type BenchPostgres } from './lib/embedded-postgres.js';
import { percentile } from './lib/percentiles.js';
import { metric, type BenchMetric, type SuiteReport } from './lib/suite-report.js';
import { startBareFastifyServer } from './jobs/bare-fastify-server.js';
import { generateDocsRepository } from './jobs/generate-docs-repository.js';
import { JobClient } from './jobs/job-client.js';
import { measureJobOverhead, type OverheadResult } from './jobs/job-overhead.js';
import { startJobServer } from './jobs/job-server.js';
import { measurePickupLatency, type PickupResult } from './jobs/pickup-latency.js';
import { comparePollThroughput, type PollComparison } from './jobs/poll-throughput.js';
import { comparePollBesideWorker } from './jobs/poll-beside-worker.js';
import { comparePollWhileWriting, type PollWhileWriting, type WritingLoad } from './jobs/poll-while-writing.js';
import { runScalingBenchmark } from './jobs/scaling-suite.js';
import { startTimedFakeModel, type TimedFakeModel } from './jobs/timed-fake-model.js';

const FULL_PAGES = 2_000;
const SMALL_PAGES = 10;
const FULL_OVERHEAD_RUNS = 10;
const FULL_PICKUP_JOBS = 200;
const FULL_POLL_SECONDS = 10;
const OVERHEAD_TARGET = 1.5;
const PICKUP_TARGET_MS = 50;
const POLL_TARGET = 0.5;
const POLL_WHILE_WRITING_TARGET = 0.4;
/**
 * Eight jobs at once, a model step every 100 ms each: about 60 step events a second, far
 * more than jobs on a real model (seconds per step) write. Turns of 45 steps (the default
 * budget is 50), 20 of them queued per job: about two minutes of activity, longer than the
 * measurement, which archives the jobs afterwards.
 */
const WRITING_LOAD: WritingLoad = { jobs: 8, stepDelayMs: 100, stepsPerTurn: 45, turnsPerJob: 20 };
const BACKEND_TITLES: Record<BackendName, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

interface Workload {
  pages: number;
  overheadRuns: number;
  pickupJobs: number;
  pollSeconds: number;
}

function workloadFor(scale: number): Workload {
  return {
    pages: Math.max(100, Math.round(FULL_PAGES * scale)),
    overheadRuns: Math.max(3, Math.round(FULL_OVERHEAD_RUNS * scale)),
    pickupJobs: Math.max(20, Math.round(FULL_PICKUP_JOBS * scale)),
    pollSeconds: Math.max(3, Math.round(FULL_POLL_SECONDS * scale)),
  };
}

export async function runJobsBenchmarks(options: BenchOptions): Promise<SuiteReport[]> {
  const workload = workloadFor(options.scale);
  // DOCWRIGHT_BENCH_CPU_PROF=DIR writes a V8 CPU profile of each server process there.
  // DOCWRIGHT_BENCH_JOBS_DIR=DIR puts repositories, clones and job workspaces there instead
  // of bench/.data/jobs, e.g. on another disk: clones are bound by file creation.
  const cpuProfileDirectory = process.env.DOCWRIGHT_BENCH_CPU_PROF;
  // DOCWRIGHT_BENCH_JOBS_PARTS=backends|scaling runs one part only (default both): `backends`
  // is the per-backend report, `scaling` the 1–2 API × 1–2 worker clusters on PostgreSQL.
  const parts = (process.env.DOCWRIGHT_BENCH_JOBS_PARTS ?? 'backends,scaling').split(',');
  const model = await startTimedFakeModel();
  let postgres: BenchPostgres | undefined;
  const reports: SuiteReport[] = [];
  const startPostgres = async (): Promise<BenchPostgres> => {
    if (postgres === undefined) {
      options.log('jobs: starting embedded PostgreSQL');
      postgres = await startBenchPostgres();
    }
    return postgres;
  };
  try {
    if (parts.includes('backends')) {
      // Jobs live in SQLite or PostgreSQL; ClickHouse only ever holds analytics.
      for (const backend of options.backends.filter(isDatabaseBackend)) {
        if (backend === 'postgres') await startPostgres();
        const report = await runOnBackend({ backend, options, workload, model, postgres, cpuProfileDirectory });
        options.onReport?.(report);
        reports.push(report);
      }
    }
    if (parts.includes('scaling') && options.backends.includes('postgres')) {
      const root = join(process.env.DOCWRIGHT_BENCH_JOBS_DIR ?? join(options.dataDir, 'jobs'), 'scaling');
      const report = await runScalingBenchmark({ postgres: await startPostgres(), model, scale: options.scale, root, cpuProfileDirectory, log: options.log });
      options.onReport?.(report);
      reports.push(report);
    }
  } finally {
    await postgres?.stop();
    await model.close();
  }
  return reports;
}

async function runOnBackend(input: {
  backend: BackendName;
  options: BenchOptions;
  workload: Workload;
  model: TimedFakeModel;
  postgres: BenchPostgres | undefined;
  cpuProfileDirectory: string | undefined;
}): Promise<SuiteReport> {
  const { backend, options, workload, model } = input;
  const root = join(process.env.DOCWRIGHT_BENCH_JOBS_DIR ?? join(options.dataDir, 'jobs'), backend);
  rmSync(root, { recursive: true, force: true });
  const scratch = join(root, 'scratch');
  mkdirSync(scratch, { recursive: true });
  options.log(`jobs (${backend}): generating a ${workload.pages}-page docs repository`);
  const large = generateDocsRepository(join(root, 'docs-large'), workload.pages);
  const small = generateDocsRepository(join(root, 'docs-small'), SMALL_PAGES);
  const databaseUrl = backend === 'postgres' ? await input.postgres?.createDatabase(`docwright_jobs_${Date.now()}`) : undefined;
  const server = await startJobServer({
    dataDir: join(root, 'server'),
    modelUrl: model.url,
    repositories: { large: large.directory, small: small.directory },
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    ...(input.cpuProfileDirectory === undefined ? {} : { cpuProfileDirectory: join(input.cpuProfileDirectory, backend) }),
    environment: { DOCWRIGHT_WORKER_CONCURRENCY: String(WRITING_LOAD.jobs) },
  });
  const largeProject = server.projects.large;
  const smallProject = server.projects.small;
  if (largeProject === undefined || smallProject === undefined) throw new Error('the benchmark server did not create its projects');
  const largeClient = new JobClient(server.url, largeProject.projectId, largeProject.apiKey);
  const smallClient = new JobClient(server.url, smallProject.projectId, smallProject.apiKey);
  const bare = await startBareFastifyServer(
    input.cpuProfileDirectory === undefined ? {} : { cpuProfileDirectory: join(input.cpuProfileDirectory, `${backend}-bare`) },
  );
  try {
    options.log(`jobs (${backend}): job overhead, ${workload.overheadRuns} jobs against raw git`);
    const loadBefore = loadavg()[0] ?? Number.NaN;
    const overhead = await measureJobOverhead({
      client: largeClient,
      model,
      serverPid: server.pid,
      repository: large,
      runs: workload.overheadRuns,
      scratchDirectory: scratch,
      log: options.log,
    });
    options.log(`jobs (${backend}): pickup latency over ${workload.pickupJobs} jobs`);
    const pickup = await measurePickupLatency({
      client: smallClient,
      model,
      jobs: workload.pickupJobs,
      repository: small.directory,
      cloneDirectory: join(scratch, 'raw-small-clone'),
      log: options.log,
    });
    options.log(`jobs (${backend}): poll throughput, ${workload.pollSeconds} s rounds`);
    const poll = await comparePollThroughput({
      pollUrl: `${server.url}/v2/agent/${largeProject.projectId}/job/${overhead.lastJobId}`,
      apiKey: largeProject.apiKey,
      pollPid: server.pid,
      bareUrl: `${bare.url}/v2/agent/${largeProject.projectId}/job/${overhead.lastJobId}`,
      barePid: bare.pid,
      settings: { connections: 10, pipelining: 1, seconds: workload.pollSeconds, rounds: 3 },
      log: options.log,
    });
    options.log(`jobs (${backend}): poll throughput while ${WRITING_LOAD.jobs} jobs write their events`);
    const writing = await comparePollWhileWriting({
      client: smallClient,
      model,
      serverUrl: server.url,
      serverPid: server.pid,
      projectId: smallProject.projectId,
      apiKey: smallProject.apiKey,
      bareUrl: bare.url,
      barePid: bare.pid,
      load: WRITING_LOAD,
      settings: { connections: 10, pipelining: 1, seconds: workload.pollSeconds, rounds: 3 },
      log: options.log,
    });
    options.log(`jobs (${backend}): poll throughput of an API process while a worker process runs ${WRITING_LOAD.jobs} writing jobs`);
    const besideWorker = await comparePollBesideWorker({
      dataDir: join(root, 'server-split'),
      databaseUrl: backend === 'postgres' ? await input.postgres?.createDatabase(`docwright_split_${Date.now()}`) : undefined,
      model,
      repository: small.directory,
      bare,
      load: WRITING_LOAD,
      settings: { connections: 10, pipelining: 1, seconds: workload.pollSeconds, rounds: 3 },
      log: options.log,
    });
    return buildReport({ backend, workload, overhead, pickup, poll, writing, besideWorker, load: [loadBefore, loadavg()[0] ?? Number.NaN], location: root });
  } finally {
    largeClient.close();
    smallClient.close();
    await bare.stop();
    await server.stop();
  }
}

const median = (values: readonly number[]): number => percentile(values, 50);
const p99 = (values: readonly number[]): number => percentile(values, 99);
const ms = (value: number): string => `${value.toFixed(1)} ms`;

interface Measured {
  backend: BackendName;
  workload: Workload;
  overhead: OverheadResult;
  pickup: PickupResult;
  poll: PollComparison;
  /** Polls of `serve`, whose in-process worker runs the writing jobs. */
  writing: PollWhileWriting;
  /** Polls of an API process while a worker process runs the writing jobs. */
  besideWorker: PollWhileWriting;
  /** 1-minute load average before and after. */
  load: [number, number];
  /** Where the repositories and workspaces were. */
  location: string;
}

function buildReport({ backend, workload, overhead, pickup, poll, writing, besideWorker, load, location }: Measured): SuiteReport {
  const gitMedian = median(overhead.git.map((timing) => timing.milliseconds));
  const phases = overhead.phases;
  return {
    suite: 'jobs',
    title: `jobs on ${BACKEND_TITLES[backend]}: agent-job overhead, pickup and polling`,
    context: [
      `Server: docwright serve (API + in-process worker, concurrency ${WRITING_LOAD.jobs}) in a child process, local forge, fake chat-completions model on loopback (zero latency unless said otherwise).`,
      `Overhead: ${overhead.runs} jobs editing 1 page of a ${workload.pages}-page docs repository (one edit_file call), create sent → job.completed event, medians; baseline: git clone (workspace.ts flags) + add + commit + push of the same change.`,
      `Pickup: ${pickup.jobs} sequential jobs on a ${SMALL_PAGES}-page repository, idle worker; baseline: a raw git clone of that repository (the unavoidable part before the model request).`,
      `Repositories, raw clones and job workspaces under ${location}.`,
      `Machine load (1-minute average) ${load[0].toFixed(1)} at the start, ${load[1].toFixed(1)} at the end: wall-clock figures wait for a core when it is above the core count; the CPU figures below do not.`,
      `Poll: autocannon ${poll.settings.connections} connections, pipelining ${poll.settings.pipelining}, ${poll.settings.rounds} alternating rounds of ${poll.settings.seconds} s per side (medians), GET /v2/agent/{projectId}/job/{id} with an admin key; baseline: a bare Fastify route answering constant JSON.`,
      `Poll while writing: the same load over ${writing.load.jobs} active jobs in turn, each running turns of ${writing.load.stepsPerTurn} steps (follow-ups queued) on a model that answers every ${writing.load.stepDelayMs} ms with a tool call, so the worker commits a step event per answer; the bare rounds run beside the same writing jobs. Twice: an API process (serve --no-worker) beside a worker process on the same store, and the serve process above with its in-process worker.`,
    ],
    metrics: [
      metric({
        name: 'job overhead (create → completed, median)',
        value: median(overhead.jobMilliseconds),
        unit: 'ms',
        baseline: { name: 'raw git clone+commit+push', value: gitMedian },
        target: { of: 'ratio', comparison: 'at-most', limit: OVERHEAD_TARGET },
      }),
      metric({
        name: 'pickup latency p99 (create → first model request)',
        value: p99(pickup.toFirstModelRequest),
        unit: 'ms',
        baseline: { name: 'raw git clone p99', value: p99(pickup.rawClone) },
        target: { of: 'value', comparison: 'at-most', limit: PICKUP_TARGET_MS },
      }),
      metric({
        name: 'job CPU (server process + its git, median)',
        value: median(overhead.jobCpuMilliseconds),
        unit: 'ms',
        baseline: { name: 'raw git CPU', value: median(overhead.git.map((timing) => timing.cpuMilliseconds)) },
      }),
      metric({ name: 'pickup latency p99 (create → turn.started)', value: p99(pickup.toTurnStarted), unit: 'ms' }),
      ...pollMetrics('poll throughput (GET job)', 'poll server CPU per request', poll, POLL_TARGET),
      ...pollMetrics(
        'poll throughput while a worker process writes (GET active jobs; serve --no-worker + worker)',
        'poll API CPU per request while a worker process writes',
        besideWorker,
        POLL_WHILE_WRITING_TARGET,
      ),
      ...pollMetrics(
        'poll throughput while its in-process worker writes (GET active jobs; serve)',
        'poll server CPU per request while its in-process worker writes (the worker included)',
        writing,
      ),
    ],
    notes: [
      `overhead phases (medians): pickup ${ms(phases.pickup)}, prepare workspace ${ms(phases.prepare)}, agent steps ${ms(phases.agent)}, check + commit + push + PR ${ms(phases.finish)}, settle ${ms(phases.settle)}.`,
      `raw git medians: clone ${ms(median(overhead.git.map((timing) => timing.cloneMilliseconds)))}, whole change ${ms(gitMedian)}, rm -rf of the clone (not counted) ${ms(median(overhead.git.map((timing) => timing.cleanupMilliseconds)))}; job runs min ${ms(Math.min(...overhead.jobMilliseconds))}, max ${ms(Math.max(...overhead.jobMilliseconds))}.`,
      `pickup p50: to first model request ${ms(median(pickup.toFirstModelRequest))}, to turn.started ${ms(median(pickup.toTurnStarted))}, create round trip ${ms(median(pickup.createRoundTrip))} (p99 ${ms(p99(pickup.createRoundTrip))}); raw clone p50 ${ms(median(pickup.rawClone))}.`,
      `event streams that ended without their job.completed event: ${overhead.missedSettlingEvents} of ${overhead.runs + 1} overhead jobs, ${pickup.missedSettlingEvents} of ${pickup.jobs + 3} pickup jobs (such a job is timed by the stream's end).`,
      `poll latency p50/p99: docwright ${poll.docwright.p50Milliseconds.toFixed(1)}/${poll.docwright.p99Milliseconds.toFixed(1)} ms, bare ${poll.bare.p50Milliseconds.toFixed(1)}/${poll.bare.p99Milliseconds.toFixed(1)} ms (${poll.docwright.total.toLocaleString('en-US')} and ${poll.bare.total.toLocaleString('en-US')} requests).`,
      `poll while a worker process writes, latency p50/p99: docwright ${besideWorker.docwright.p50Milliseconds.toFixed(1)}/${besideWorker.docwright.p99Milliseconds.toFixed(1)} ms, bare ${besideWorker.bare.p50Milliseconds.toFixed(1)}/${besideWorker.bare.p99Milliseconds.toFixed(1)} ms; ${besideWorker.eventsPerSecond.toFixed(0)} step events committed per second.`,
      `poll while the in-process worker writes, latency p50/p99: docwright ${writing.docwright.p50Milliseconds.toFixed(1)}/${writing.docwright.p99Milliseconds.toFixed(1)} ms, bare ${writing.bare.p50Milliseconds.toFixed(1)}/${writing.bare.p99Milliseconds.toFixed(1)} ms; ${writing.eventsPerSecond.toFixed(0)} step events committed per second. Each git command the worker starts blocks the process's event loop while Node forks it (spawn), which shows here as the worker's share.`,
    ],
  };
}

/** Throughput against bare Fastify with its target, and server CPU per request beside it. */
function pollMetrics(name: string, cpuName: string, comparison: PollComparison, target?: number): BenchMetric[] {
  return [
    metric({
      name,
      value: comparison.docwright.requestsPerSecond,
      unit: 'req/s',
      baseline: { name: 'bare Fastify', value: comparison.bare.requestsPerSecond },
      ...(target === undefined ? {} : { target: { of: 'ratio', comparison: 'at-least', limit: target } as const }),
    }),
    metric({
      name: cpuName,
      value: comparison.docwright.cpuMicrosecondsPerRequest,
      unit: 'µs',
      baseline: { name: 'bare Fastify', value: comparison.bare.cpuMicrosecondsPerRequest },
    }),
  ];
}
