import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/app/logger.js';
import { createJobWorker } from '../../src/jobs/start-job-worker.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app.js';
import { createDocsRepository, branches } from '../helpers/docs-repository.js';
import { CLI } from '../helpers/run-cli.js';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { docsAgentScript } from './docs-agent-script.js';

describe.each(BACKENDS)('a worker killed mid-run [%s]', (dialect) => {
  let t: TestApp;
  let model: FakeModelServer;
  let child: ChildProcess | null = null;
  let rescuer: WorkerPool | null = null;
  afterEach(async () => {
    child?.kill('SIGKILL');
    await rescuer?.stop(5_000);
    await t.close();
    await model.close();
  });

  test('the job is retried by another worker and ends with one branch and one pull request', async () => {
    let killed: () => void = () => {};
    const childKilled = new Promise<void>((resolve) => (killed = resolve));
    let firstWorkerCalls = 0;
    model = await startFakeModelServer({
      script: async (request, callIndex) => {
        // The first worker's second model call never returns: the test kills that worker right then.
        if (child && !child.killed && request.toolRounds === 1 && firstWorkerCalls++ === 0) {
          child.kill('SIGKILL');
          killed();
          return { text: 'never delivered', delayMs: 60_000 };
        }
        return docsAgentScript(request, callIndex);
      },
    });
    const environment = {
      DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
      DOCWRIGHT_JOB_LEASE_SECONDS: '1',
      DOCWRIGHT_MODEL_RETRIES: '0',
      DOCWRIGHT_PUBLIC_URL: 'http://docs.test',
    };
    t = await createTestApp(dialect, environment, { clock: systemClock });
    const repository = createDocsRepository();
    const project = await t.services.projects.create({ name: 'Docs', repository, ref: 'main', forge: 'local', settings: {} });

    child = spawn(process.execPath, [CLI, 'worker'], {
      env: {
        PATH: process.env.PATH ?? '',
        DOCWRIGHT_DATA_DIR: t.testDatabase.dataDir,
        DOCWRIGHT_SECRET: TEST_SECRET,
        DOCWRIGHT_LOG_LEVEL: 'warn',
        ...(dialect === 'postgres' ? { DOCWRIGHT_DATABASE_URL: t.testDatabase.location } : {}),
        ...environment,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let childErrors = '';
    child.stderr?.on('data', (chunk: Buffer) => (childErrors += chunk.toString()));
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page');
    await Promise.race([childKilled, new Promise((_, reject) => setTimeout(() => reject(new Error(`worker never reached the model: ${childErrors}`)), 20_000))]);
    const turnAfterKill = await t.services.database.db.selectFrom('job_turns').select(['status', 'attempts']).where('job_id', '=', job.id).executeTakeFirstOrThrow();
    expect(turnAfterKill).toEqual({ status: 'running', attempts: 1 });

    rescuer = createJobWorker(t.services, createLogger({ level: 'silent' }), { leaseMs: 1_000, idlePollMs: 100 });
    rescuer.start();
    const deadline = Date.now() + 30_000;
    let current = await t.services.jobRepository.get(project.id, job.id);
    while (current.status === 'active' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = await t.services.jobRepository.get(project.id, job.id);
    }
    expect(current.status).toBe('completed');
    expect(branches(repository)).toEqual(['main', `docwright/${job.id}`].sort());
    const pulls = await t.services.database.db.selectFrom('local_pull_requests').selectAll().execute();
    expect(pulls).toHaveLength(1);
    expect(current.prLink).toBe(`http://docs.test/projects/${project.id}/pulls/1?token=${pulls[0]!.share_token}`);
    const turn = await t.services.database.db.selectFrom('job_turns').select(['status', 'attempts']).where('job_id', '=', job.id).executeTakeFirstOrThrow();
    expect(turn).toEqual({ status: 'completed', attempts: 2 });
  });
});
