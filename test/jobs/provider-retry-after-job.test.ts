import { afterEach, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import { systemClock } from '../../src/core/clock.js';
import { createJobWorker } from '../../src/jobs/start-job-worker.js';
import { retryDelayMs } from '../../src/jobs/job-runner.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const PROVIDER_KEY = 'sk-test-provider-secret-123456';

describe.each(BACKENDS)('a provider asking for a long wait [%s]', (dialect) => {
  let app: TestApp | undefined;
  let worker: WorkerPool | undefined;
  let model: FakeModelServer | undefined;
  afterEach(async () => {
    await worker?.stop(5_000);
    await app?.close();
    await model?.close();
  });

  // One model call waits at most 120 s (model-call-retry.ts), so a longer wait falls to the job's retry.
  test('retry-after: 150 puts the turn back for at least 150 s, not the 0.05 s backoff, after one provider call', async () => {
    model = await startFakeModelServer({ script: () => ({ status: 429, headers: { 'retry-after': '150' } }) });
    app = await createTestApp(
      dialect,
      {
        DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
        DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
        DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: PROVIDER_KEY,
        DOCWRIGHT_MODEL_RETRIES: '0',
        DOCWRIGHT_JOB_RETRY_BASE_SECONDS: '0.05',
        DOCWRIGHT_JOB_MAX_ATTEMPTS: '3',
        DOCWRIGHT_PUBLIC_URL: 'http://docs.test',
      },
      { clock: systemClock },
    );
    const project = await app.services.projects.create({ name: 'Docs', repository: createDocsRepository(), ref: 'main', forge: 'local', settings: {} });
    const key = (await app.services.keys.create({ projectId: project.id })).key;
    worker = createJobWorker(app.services, createLogger({ level: 'silent' }), { leaseMs: 10_000, idlePollMs: 100 });
    worker.start();
    const created = await app.app.inject({
      method: 'POST',
      url: `/v2/agent/${project.id}/job`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ prompt: 'Fix the typo on the quickstart page.' }),
    });
    expect(created.statusCode).toBe(201);
    const jobId = created.json<{ id: string }>().id;
    const db = app.services.database.db;

    let retrying: { data: string; created_at: number } | undefined;
    for (const deadline = Date.now() + 20_000; retrying === undefined && Date.now() < deadline;) {
      retrying = await db
        .selectFrom('job_events')
        .select(['data', 'created_at'])
        .where('job_id', '=', jobId)
        .where('type', '=', 'turn.retrying')
        .executeTakeFirst();
      if (retrying === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(retrying).toBeDefined();
    const data = JSON.parse(retrying!.data) as { code: string; message: string; inSeconds: number };
    expect(data.code).toBe('model_error');
    expect(data.inSeconds).toBeGreaterThanOrEqual(150);
    expect(data.message).toContain('asked to wait 150 s');
    const queued = await db.selectFrom('job_queue').select('run_at').where('job_id', '=', jobId).executeTakeFirstOrThrow();
    expect(queued.run_at - retrying!.created_at).toBeGreaterThanOrEqual(150_000);
    // One call: neither the model call nor (yet) the job retried early into the same refusal.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(model.requests).toHaveLength(1);
    const job = await db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job.status).toBe('active');
  });
});

test('the job backoff is never shorter than the provider asked, up to an hour', () => {
  expect(retryDelayMs(1, 2_000)).toBe(2_000);
  expect(retryDelayMs(2, 2_000, 90_000)).toBe(90_000);
  expect(retryDelayMs(4, 2_000, 1_000)).toBe(16_000);
  expect(retryDelayMs(30, 2_000)).toBe(600_000);
  expect(retryDelayMs(1, 2_000, 86_400_000)).toBe(3_600_000);
});
