import { afterEach, describe, expect, test } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/app/logger.js';
import type { Database } from '../../src/db/database.js';
import { openPostgresDatabase } from '../../src/db/postgres-database.js';
import { JobQueue } from '../../src/queue/job-queue.js';
import { WorkerPool, type JobHandler } from '../../src/queue/worker-pool.js';
import type { Project } from '../../src/projects/project.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';

const LEASE_MS = 60_000;
const silent = createLogger({ level: 'silent' });

/** Queues `count` jobs in the project, each a millisecond after the one before (with a manual clock). */
async function queueJobs(t: TestApp, project: Project, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    ids.push((await t.services.jobs.create(project, `Job ${index + 1}`)).job.id);
    if ('advance' in t.clock) t.clock.advance(1);
  }
  return ids;
}

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(BACKENDS)('fair job claims across projects [%s]', (dialect) => {
  let t: TestApp;
  const pools: WorkerPool[] = [];
  const databases: Database[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.stop(5_000)));
    await Promise.all(databases.splice(0).map((database) => database.close()));
    await t.close();
  });

  test("a project's 60 queued jobs delay another project's job by at most one run: with concurrency 1 it is the 2nd claimed", async () => {
    t = await createTestApp(dialect, { DOCWRIGHT_RATE_LIMIT: '1000' });
    const burst = await createTestProject(t.services, { name: 'Burst' });
    const other = await createTestProject(t.services, { name: 'Other' });
    const burstJobs = await queueJobs(t, burst, 60);
    const [otherJob] = await queueJobs(t, other, 1);

    const order: string[] = [];
    const handler: JobHandler = async (lease) => {
      order.push(lease.jobId);
      await t.services.queue.remove(t.services.database.db, lease.jobId);
    };
    const pool = new WorkerPool({
      queue: t.services.queue,
      notifier: t.services.notifier,
      handler,
      logger: silent,
      concurrency: 1,
      jobsPerProject: 1,
      leaseMs: LEASE_MS,
      idlePollMs: 20,
    });
    pools.push(pool);
    pool.start();
    await until(() => order.length === 61, 'all 61 jobs to run');

    expect(order[0]).toBe(burstJobs[0]);
    expect(order[1]).toBe(otherJob);
    // The burst's own jobs still run oldest first, each once.
    expect(order.filter((jobId) => jobId !== otherJob)).toEqual(burstJobs);
  });

  test('several pools claiming at once (on PostgreSQL each with its own connections) never hold more than the cap for one project', async () => {
    t = await createTestApp(dialect, { DOCWRIGHT_RATE_LIMIT: '1000' }, { clock: systemClock });
    const cap = 2;
    const projectOf = new Map<string, string>();
    for (const name of ['Alpha', 'Beta']) {
      const project = await createTestProject(t.services, { name });
      for (const jobId of await queueJobs(t, project, 20)) projectOf.set(jobId, project.id);
    }

    const running = new Map<string, number>();
    const most = new Map<string, number>();
    const stored: number[] = [];
    const ran: string[] = [];
    for (let index = 0; index < 3; index++) {
      // PostgreSQL: each pool has its own connection pool, as a worker process would. SQLite:
      // one connection per process (better-sqlite3 waits for the lock synchronously), so the
      // pools share it and their claims interleave as those of one process's workers would.
      const database = dialect === 'postgres' ? openPostgresDatabase(t.testDatabase.location, { maxConnections: 4 }) : t.services.database;
      if (database !== t.services.database) databases.push(database);
      const queue = new JobQueue(database, systemClock);
      const handler: JobHandler = async (lease) => {
        const projectId = projectOf.get(lease.jobId)!;
        // Counted after the claim committed and uncounted before the row goes: never more than the store holds.
        running.set(projectId, (running.get(projectId) ?? 0) + 1);
        most.set(projectId, Math.max(most.get(projectId) ?? 0, running.get(projectId)!));
        const live = await database.db
          .selectFrom('job_queue')
          .innerJoin('jobs', 'jobs.id', 'job_queue.job_id')
          .select((eb) => eb.fn.countAll<number>().as('leases'))
          .where('jobs.project_id', '=', projectId)
          .where('job_queue.locked_until', '>=', Date.now())
          .executeTakeFirstOrThrow();
        stored.push(Number(live.leases));
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 25));
        running.set(projectId, running.get(projectId)! - 1);
        ran.push(lease.jobId);
        await queue.remove(database.db, lease.jobId);
      };
      const pool = new WorkerPool({
        queue,
        notifier: t.services.notifier,
        handler,
        logger: silent,
        concurrency: 4,
        jobsPerProject: cap,
        leaseMs: LEASE_MS,
        idlePollMs: 5,
      });
      pools.push(pool);
    }
    for (const pool of pools) pool.start();
    await until(() => ran.length === 40, 'all 40 jobs to run');

    expect(new Set(ran).size).toBe(40);
    // 12 slots for 2 projects: without the cap each project would hold up to 12 at once.
    expect([...most.values()]).toEqual([cap, cap]);
    expect(Math.max(...stored)).toBeLessThanOrEqual(cap);
  });

  test('a project at its cap does not keep idle workers asking; a lapsed lease frees its slot and is retaken first', async () => {
    t = await createTestApp(dialect);
    const project = await createTestProject(t.services);
    const [first, second] = await queueJobs(t, project, 2);
    const { queue } = t.services;

    expect(await queue.claim('worker-a', LEASE_MS, 1)).toMatchObject({ jobId: first });
    expect(await queue.claim('worker-b', LEASE_MS, 1)).toBeNull();
    // The second job is ready, but only a slot of its project's can let it run: the worker
    // waits for the lease's end (or the idle poll), not 0 ms.
    expect(await queue.nextReadyInMs(1)).toBe(LEASE_MS);
    expect(await queue.nextReadyInMs()).toBe(0);

    // Another project's job is claimable at once.
    const other = await createTestProject(t.services, { name: 'Other' });
    const [otherJob] = await queueJobs(t, other, 1);
    expect(await queue.nextReadyInMs(1)).toBe(0);
    expect(await queue.claim('worker-b', LEASE_MS, 1)).toMatchObject({ jobId: otherJob });
    await queue.remove(t.services.database.db, otherJob!);

    // worker-a died: its lease lapses, the slot is free, and its job (the older) is retaken.
    t.clock.advance(LEASE_MS + 1);
    expect(await queue.claim('worker-c', LEASE_MS, 1)).toMatchObject({ jobId: first });
    expect(await queue.claim('worker-c', LEASE_MS, 1)).toBeNull();
    await queue.remove(t.services.database.db, first!);
    expect(await queue.claim('worker-c', LEASE_MS, 1)).toMatchObject({ jobId: second });
  });
});
