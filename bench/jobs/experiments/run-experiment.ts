/**
 * Runs one part of the jobs suite against a server with an experiment's patch loaded, to
 * measure what a change in src/ would gain before anyone makes it:
 *
 *   node --import tsx bench/jobs/experiments/run-experiment.ts poll|poll-writing|pickup|overhead
 *     [--patch statement-cache|key-cache|spawn-trace] [--postgres] [--seconds N] [--jobs N] [--pages N] [--profile DIR]
 *
 * `poll` prints requests/s and server CPU per request of the poll route and of the bare
 * Fastify baseline; `poll-writing` the same over active jobs whose worker writes events
 * (poll-while-writing.ts; --jobs is then the number of writing jobs, default 8; --split
 * polls an API process while a separate worker process writes, poll-beside-worker.ts); `pickup`
 * prints pickup percentiles; `overhead` the job-overhead figure (job-overhead.ts) on a
 * repository of --pages pages (default 2,000), --jobs measured jobs (default 5). --profile writes CPU profiles
 * (summarize them with summarize-cpu-profile.ts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBenchPostgres } from '../../lib/embedded-postgres.js';
import { percentile } from '../../lib/percentiles.js';
import { startBareFastifyServer } from '../bare-fastify-server.js';
import { generateDocsRepository } from '../generate-docs-repository.js';
import { JobClient } from '../job-client.js';
import { startJobServer } from '../job-server.js';
import { measurePickupLatency } from '../pickup-latency.js';
import { measureJobOverhead } from '../job-overhead.js';
import { comparePollThroughput } from '../poll-throughput.js';
import { comparePollBesideWorker } from '../poll-beside-worker.js';
import { comparePollWhileWriting } from '../poll-while-writing.js';
import { startTimedFakeModel } from '../timed-fake-model.js';

const PATCHES: Record<string, string> = {
  'statement-cache': 'statement-cache-patch.ts',
  'key-cache': 'key-cache-patch.ts',
  'spawn-trace': 'spawn-trace-patch.ts',
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    patch: { type: 'string' },
    postgres: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '5' },
    jobs: { type: 'string' },
    profile: { type: 'string' },
    split: { type: 'boolean', default: false },
    pages: { type: 'string' },
  },
});
const part = positionals[0];
if (part !== 'poll' && part !== 'poll-writing' && part !== 'pickup' && part !== 'overhead')
  throw new Error(
    'usage: run-experiment.ts poll|poll-writing|pickup|overhead [--patch NAME] [--postgres] [--seconds N] [--jobs N] [--pages N] [--profile DIR]',
  );
const writingJobs = part === 'poll-writing' ? Number(values.jobs ?? 8) : 0;
const patchFile = values.patch === undefined ? undefined : PATCHES[values.patch];
if (values.patch !== undefined && patchFile === undefined) throw new Error(`unknown patch ${values.patch}; one of ${Object.keys(PATCHES).join(', ')}`);

// One folder per part and size: two experiments at once must not remove each other's files.
const root = join(tmpdir(), `docwright-jobs-experiment-${part}${part === 'overhead' ? `-${values.pages ?? 2_000}` : ''}${values.postgres ? '-postgres' : ''}`);
rmSync(root, { recursive: true, force: true });
mkdirSync(join(root, 'scratch'), { recursive: true });
const repository = generateDocsRepository(join(root, 'docs'), part === 'overhead' ? Number(values.pages ?? 2_000) : 10);
const model = await startTimedFakeModel();
const postgres = values.postgres ? await startBenchPostgres() : undefined;
const databaseUrl = await postgres?.createDatabase('jobs_experiment');
const server = await startJobServer({
  dataDir: join(root, 'server'),
  modelUrl: model.url,
  repositories: { docs: repository.directory },
  ...(databaseUrl === undefined ? {} : { databaseUrl }),
  ...(values.profile === undefined ? {} : { cpuProfileDirectory: join(values.profile, 'server') }),
  execArgv: patchFile === undefined ? [] : ['--import', fileURLToPath(new URL(patchFile, import.meta.url))],
  ...(writingJobs > 0 ? { environment: { DOCWRIGHT_WORKER_CONCURRENCY: String(writingJobs) } } : {}),
});
const project = server.projects.docs;
if (project === undefined) throw new Error('the server created no project');
const client = new JobClient(server.url, project.projectId, project.apiKey);
const format = (samples: number[]): string => `p50 ${percentile(samples, 50).toFixed(1)} ms, p99 ${percentile(samples, 99).toFixed(1)} ms`;
try {
  if (part === 'overhead') {
    const runs = Number(values.jobs ?? 5);
    const result = await measureJobOverhead({
      client,
      model,
      serverPid: server.pid,
      repository,
      runs,
      scratchDirectory: join(root, 'scratch'),
      log: console.log,
    });
    const git = result.git.map((timing) => timing.milliseconds);
    const jobMedian = percentile(result.jobMilliseconds, 50);
    const gitMedian = percentile(git, 50);
    const { phases } = result;
    console.log(`job overhead ${(jobMedian / gitMedian).toFixed(2)}× (job ${jobMedian.toFixed(0)} ms, raw git ${gitMedian.toFixed(0)} ms, medians of ${runs})`);
    console.log(
      `job CPU ${percentile(result.jobCpuMilliseconds, 50).toFixed(0)} ms, raw git CPU ${percentile(
        result.git.map((timing) => timing.cpuMilliseconds),
        50,
      ).toFixed(0)} ms`,
    );
    console.log(`first job on the commit (unmeasured warm-up, indexes the base): ${result.warmUpMilliseconds.toFixed(0)} ms`);
    console.log(
      `phases: pickup ${phases.pickup.toFixed(0)}, prepare ${phases.prepare.toFixed(0)}, agent ${phases.agent.toFixed(0)}, finish ${phases.finish.toFixed(0)}, settle ${phases.settle.toFixed(0)} ms`,
    );
  } else if (part === 'pickup') {
    const result = await measurePickupLatency({
      client,
      model,
      jobs: Number(values.jobs ?? 100),
      repository: repository.directory,
      cloneDirectory: join(root, 'scratch', 'clone'),
      log: () => {},
    });
    console.log(`create → first model request: ${format(result.toFirstModelRequest)}`);
    console.log(`create → turn.started:        ${format(result.toTurnStarted)}`);
    console.log(`create round trip:            ${format(result.createRoundTrip)}`);
    console.log(`raw git clone:                ${format(result.rawClone)}`);
  } else if (part === 'poll-writing') {
    const bare = await startBareFastifyServer(values.profile === undefined ? {} : { cpuProfileDirectory: join(values.profile, 'bare') });
    try {
      const settings = { connections: 10, pipelining: 1, seconds: Number(values.seconds), rounds: 1 };
      const load = { jobs: writingJobs, stepDelayMs: 100, stepsPerTurn: 45, turnsPerJob: 20 };
      const splitDatabase = values.split ? await postgres?.createDatabase('jobs_experiment_split') : undefined;
      const result = values.split
        ? await comparePollBesideWorker({
            dataDir: join(root, 'split'),
            databaseUrl: splitDatabase,
            model,
            repository: repository.directory,
            bare,
            load,
            settings,
            log: console.log,
          })
        : await comparePollWhileWriting({
            client,
            model,
            serverUrl: server.url,
            serverPid: server.pid,
            projectId: project.projectId,
            apiKey: project.apiKey,
            bareUrl: bare.url,
            barePid: bare.pid,
            load,
            settings,
            log: console.log,
          });
      console.log(`ratio ${(result.docwright.requestsPerSecond / result.bare.requestsPerSecond).toFixed(2)}, ${result.eventsPerSecond.toFixed(0)} events/s`);
    } finally {
      await bare.stop();
    }
  } else {
    model.expect('poll', () => ({ text: 'Nothing to change.' }));
    const job = await client.create('[bench:poll] Check the quickstart.');
    await client.waitForSettled(job.id);
    const bare = await startBareFastifyServer(values.profile === undefined ? {} : { cpuProfileDirectory: join(values.profile, 'bare') });
    try {
      const path = `/v2/agent/${project.projectId}/job/${job.id}`;
      const settings = { connections: 10, pipelining: 1, seconds: Number(values.seconds), rounds: 1 };
      const result = await comparePollThroughput({
        pollUrl: `${server.url}${path}`,
        apiKey: project.apiKey,
        pollPid: server.pid,
        bareUrl: `${bare.url}${path}`,
        barePid: bare.pid,
        settings,
        log: console.log,
      });
      console.log(`ratio ${(result.docwright.requestsPerSecond / result.bare.requestsPerSecond).toFixed(2)}`);
    } finally {
      await bare.stop();
    }
  }
} finally {
  client.close();
  await server.stop();
  await model.close();
  await postgres?.stop();
}
