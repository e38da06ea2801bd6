import { afterEach, describe, expect, test } from 'vitest';
import pg from 'pg';
import { ManualClock } from '../../src/core/clock.js';
import { replyWithText } from '../fakes/fake-model-server.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { openSecondInstance, type SecondInstance } from '../helpers/second-instance.js';
import { BACKENDS } from '../helpers/test-database.js';

/**
 * The poll route answers from memory (SQLite: while `data_version` stands still; PostgreSQL:
 * JobRowCache, kept by NOTIFY). These tests hold it to what a client behind a load balancer
 * sees: process A takes the write, process B answers the next poll.
 */
describe.each(BACKENDS)('polling a job through another process [%s]', (dialect) => {
  let h: JobHarness;
  let other: SecondInstance;
  afterEach(async () => {
    await other?.close();
    await h?.close();
  });

  /** `frozenClock`: B's clock stands still, so nothing it holds expires by age during the test. */
  async function setUp(options: { frozenClock?: boolean } = {}): Promise<void> {
    h = await createJobHarness(dialect, replyWithText('Nothing to change.'));
    other = await openSecondInstance(h, options.frozenClock === true ? { clock: new ManualClock(Date.now()) } : {});
  }

  const pollB = async (jobId: string): Promise<{ status: string; archivedAt: string | null }> => {
    const response = await other.app.inject({ url: `/v2/agent/${h.projectId}/job/${jobId}`, headers: { authorization: `Bearer ${h.key}` } });
    expect(response.statusCode).toBe(200);
    return response.json();
  };

  /** PostgreSQL poll queries process B has sent so far. */
  function countPollQueries(): () => number {
    const raw = other.services.database.raw;
    if (raw.dialect !== 'postgres') return () => 0;
    let count = 0;
    const query = raw.pool.query.bind(raw.pool) as (...args: unknown[]) => unknown;
    raw.pool.query = ((...args: unknown[]) => {
      const config = args[0] as { name?: string };
      if (config?.name === 'docwright_jobs_by_ids') count++;
      return query(...args);
    }) as typeof raw.pool.query;
    return () => count;
  }

  test('a poll through B right after a follow-up or an archive through A sees it', async () => {
    await setUp();
    const queries = countPollQueries();
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'first' });
    expect(created.status).toBe(201);
    const jobId: string = created.body.id;
    expect((await h.waitForSettled(jobId)).status).toBe('completed');
    // The worker's settle reaches B by notification, without a request to A.
    await expect.poll(async () => (await pollB(jobId)).status, { timeout: 5_000, interval: 10 }).toBe('completed');
    const before = queries();
    for (let poll = 0; poll < 5; poll++) expect((await pollB(jobId)).status).toBe('completed');
    // On PostgreSQL those polls were answered from B's memory: the figures below would mean nothing otherwise.
    if (dialect === 'postgres') expect(queries() - before).toBe(0);

    // No worker from here on, so the job stays as the writes leave it.
    await h.worker.stop(5_000);
    const messaged = await h.request('POST', `/v2/agent/${h.projectId}/job/${jobId}/message`, { prompt: 'second' });
    expect([messaged.status, messaged.body.status]).toEqual([200, 'active']);
    expect((await pollB(jobId)).status).toBe('active');
    expect((await pollB(jobId)).status).toBe('active');

    const archived = await h.request('POST', `/v2/agent/${h.projectId}/job/${jobId}/archive`, {});
    expect(archived.body.status).toBe('archived');
    expect(await pollB(jobId)).toMatchObject({ status: 'archived', archivedAt: archived.body.archivedAt });
  });

  test.runIf(dialect === 'postgres')('B never answers from memory while its LISTEN connection is down, nor with what it missed', async () => {
    await setUp({ frozenClock: true });
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'first' });
    const jobId: string = created.body.id;
    await h.waitForSettled(jobId);
    await h.worker.stop(5_000);
    await expect.poll(async () => (await pollB(jobId)).status, { timeout: 5_000, interval: 10 }).toBe('completed');

    // Drop every LISTEN connection of this test's database (A's and B's), then change the
    // job behind everyone's back: no notification can tell of it.
    const admin = new pg.Client({ connectionString: h.testDatabase.location });
    await admin.connect();
    try {
      const terminated = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()",
      );
      expect(terminated.rowCount).toBeGreaterThanOrEqual(2);
      await expect.poll(() => other.services.notifier.listening, { timeout: 5_000, interval: 10 }).toBe(false);
      await admin.query("update jobs set status = 'failed', error_code = 'behind_your_back' where id = $1", [jobId]);
      expect((await pollB(jobId)).status).toBe('failed');
      // Back up: what was missed while down is not answered from memory either.
      await expect.poll(() => other.services.notifier.listening, { timeout: 15_000, interval: 50 }).toBe(true);
      expect((await pollB(jobId)).status).toBe('failed');
      await admin.query("update jobs set status = 'completed', error_code = null where id = $1", [jobId]);
      await admin.query("select pg_notify('docwright_job_events', $1)", [jobId]);
      await expect.poll(async () => (await pollB(jobId)).status, { timeout: 5_000, interval: 10 }).toBe('completed');
    } finally {
      await admin.end();
    }
  });
});
