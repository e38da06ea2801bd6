import type { WorkerOptions } from 'node:worker_threads';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { REPORT_THREADS } from '../../src/analytics/sqlite-report-pool.js';

/** Every worker thread this file's modules start, by entry file: the report threads are counted. */
const started = vi.hoisted(() => ({ files: [] as string[] }));
vi.mock('node:worker_threads', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:worker_threads')>();
  class CountedWorker extends actual.Worker {
    constructor(file: string | URL, options?: WorkerOptions) {
      super(file, options);
      started.files.push(String(file));
    }
  }
  return { ...actual, Worker: CountedWorker, default: { ...actual, Worker: CountedWorker } };
});
const reportThreads = () => started.files.filter((file) => file.includes('report-worker')).length;

const DAY = 86_400_000;

/**
 * `serve` builds one AnalyticsService: the API's, which the agent's query_analytics tool
 * shares (agent-analytics.ts). A second one would hold its own report threads (two on
 * SQLite) and its own caches.
 */
describe.each(ANALYTICS_BACKENDS)('one analytics service per serving process (%s)', (backend) => {
  let t: TestApp;
  afterEach(async () => t?.close());

  test("the agent's tool reads through the API's service: the same object, no second set of report threads", async () => {
    started.files.length = 0;
    t = await createTestApp(backend);
    const project = await createTestProject(t.services);
    const key = (await t.services.keys.create({ projectId: project.id })).key;
    const agentAnalytics = t.services.agentAnalytics;
    // The analytics routes registered: the API's service is the one the tool will use.
    const shared = agentAnalytics.reports;
    expect(shared).not.toBeNull();

    const to = t.clock.now();
    const from = to - 7 * DAY;
    const range = `dateFrom=${new Date(from).toISOString()}&dateTo=${new Date(to).toISOString()}`;
    const viaApi = await t.app.inject({ method: 'GET', url: `/v1/analytics/${project.id}/pages?${range}`, headers: { authorization: `Bearer ${key}` } });
    expect(viaApi.statusCode).toBe(200);
    const threadsOfTheApi = reportThreads();
    const answer = await agentAnalytics.source(project.id).query({ report: 'top_pages_ai', from, to, limit: 5 });
    expect(answer.rows).toEqual([]);
    expect(agentAnalytics.reports).toBe(shared);
    expect(reportThreads()).toBe(threadsOfTheApi);
    if (backend === 'sqlite') expect(threadsOfTheApi).toBe(REPORT_THREADS);

    // Once the API's service closes with the app, the tool lets go of it (a worker-only process builds its own).
    await t.app.close();
    expect(agentAnalytics.reports).toBeNull();
  });
});
