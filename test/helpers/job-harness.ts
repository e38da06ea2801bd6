import { systemClock } from '../../src/core/clock.js';
import type { AnalyticsBackend } from './test-database.js';
import { createLogger } from '../../src/app/logger.js';
import { createJobWorker } from '../../src/jobs/start-job-worker.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import type { Job } from '../../src/jobs/job.js';
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createTestApp, type TestApp } from './test-app.js';
import { createDocsRepository } from './docs-repository.js';

/** A response body, read by the tests' assertions like light-my-request's json(). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see eslint.config.js on tests reading bodies as any
type ResponseBody = any;

export interface JobHarness extends TestApp {
  model: FakeModelServer;
  repository: string;
  projectId: string;
  key: string;
  worker: WorkerPool;
  request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: ResponseBody; headers: Record<string, unknown> }>;
  /** Polls the job like a client would, until it is no longer active. */
  waitForSettled(jobId: string, timeoutMs?: number): Promise<Job>;
}

/**
 * A real app, a real worker, a real git repository and the real model provider code,
 * talking to a scripted chat-completions server on loopback.
 */
export async function createJobHarness(
  /** A database dialect, or 'clickhouse' (SQLite with analytics in ClickHouse). */
  dialect: AnalyticsBackend,
  script: FakeModelScript,
  environment: Record<string, string> = {},
  /** Files added to (or replacing those of) the default docs repository. */
  repositoryFiles: Record<string, string> = {},
): Promise<JobHarness> {
  const model = await startFakeModelServer({ script });
  const t = await createTestApp(
    dialect,
    {
      DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'sk-test-provider-secret-123456',
      DOCWRIGHT_MODEL_RETRIES: '0',
      DOCWRIGHT_JOB_RETRY_BASE_SECONDS: '0.05',
      DOCWRIGHT_JOB_MAX_STEPS: '10',
      DOCWRIGHT_PUBLIC_URL: 'http://docs.test',
      ...environment,
    },
    { clock: systemClock },
  );
  const repository = createDocsRepository(repositoryFiles);
  const project = await t.services.projects.create({ name: 'Example Docs', repository, ref: 'main', forge: 'local', settings: {} });
  const key = (await t.services.keys.create({ projectId: project.id })).key;
  const worker = createJobWorker(t.services, createLogger({ level: 'silent' }), { leaseMs: 10_000, idlePollMs: 200 });
  worker.start();
  const request: JobHarness['request'] = async (method, path, body, headers = {}) => {
    const response = await t.app.inject({
      method,
      url: path,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, body: response.body === '' ? undefined : response.json(), headers: response.headers };
  };
  return {
    ...t,
    model,
    repository,
    projectId: project.id,
    key,
    worker,
    request,
    async waitForSettled(jobId, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await request('GET', `/v2/agent/${project.id}/job/${jobId}`);
        if (body.status !== 'active') return body as Job;
        if (Date.now() > deadline) throw new Error(`job ${jobId} still active after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      await worker.stop(5_000);
      await t.close();
      await model.close();
    },
  };
}
