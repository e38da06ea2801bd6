import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { holdLease, type LeaseClaim } from '../../src/queue/lease-fence.js';
import { RunWrites } from '../../src/jobs/run-writes.js';
import type { TurnOutcome } from '../../src/jobs/execute-turn.js';
import type { Project } from '../../src/projects/project.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { rejection } from '../helpers/rejection.js';

const LEASE_MS = 60_000;

const outcome: TurnOutcome = {
  finalMessage: 'Done.',
  steps: [],
  usage: { inputTokens: 1, outputTokens: 1 },
  filesChanged: ['page.md'],
  commit: 'a'.repeat(40),
  problems: [],
  unresolvedProblems: 0,
  fixRounds: 0,
  stopped: null,
  refusedFiles: [],
  pullRequest: { number: 1, url: 'https://forge.test/pull/1', created: true },
  instructions: { found: null, ignored: [] },
};

describe.each(BACKENDS)('fenced writes of a run [%s]', (dialect) => {
  let t: TestApp;
  let project: Project;
  let jobId: string;
  let writes: RunWrites;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    project = await createTestProject(t.services);
    jobId = (await t.services.jobs.create(project, 'Write a page')).job.id;
    writes = new RunWrites({ database: t.services.database, clock: t.clock, queue: t.services.queue, notifier: t.services.notifier });
  });
  afterEach(async () => t.close());

  async function claim(workerId: string): Promise<LeaseClaim> {
    const claimed = await t.services.queue.claim(workerId, LEASE_MS);
    if (claimed === null) throw new Error(`${workerId} claimed nothing`);
    return { ...claimed, workerId };
  }

  /** Worker A claims, pauses past its lease, worker B claims: A's lease is stale, B's is live. */
  async function staleAndLive(): Promise<{ stale: LeaseClaim; live: LeaseClaim }> {
    const stale = await claim('worker-a');
    t.clock.advance(LEASE_MS + 1);
    const live = await claim('worker-b');
    expect(live.jobId).toBe(stale.jobId);
    expect(live.token).toBeGreaterThan(stale.token);
    return { stale, live };
  }

  /** Everything a run's write could change. */
  async function snapshot() {
    const { db } = t.services.database;
    return {
      job: await db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst(),
      turns: await db.selectFrom('job_turns').selectAll().where('job_id', '=', jobId).orderBy('sequence').execute(),
      events: await db.selectFrom('job_events').select(['id', 'type']).where('job_id', '=', jobId).orderBy('id').execute(),
      queue: await db.selectFrom('job_queue').selectAll().where('job_id', '=', jobId).executeTakeFirst(),
      pulls: await db.selectFrom('local_pull_requests').selectAll().execute(),
    };
  }

  async function firstTurn() {
    return t.services.database.db.selectFrom('job_turns').selectAll().where('job_id', '=', jobId).where('sequence', '=', 1).executeTakeFirstOrThrow();
  }

  const completeTurns = () => t.services.database.db.updateTable('job_turns').set({ status: 'completed' }).where('job_id', '=', jobId).execute();

  /** Name, the write, and what has to be true before it (done before the snapshot). */
  const writePaths: Array<[string, (lease: LeaseClaim) => Promise<unknown>, (() => Promise<unknown>)?]> = [
    ['a job event (a step)', (lease) => writes.event(lease, 'step', { sequence: 1, step: 1 })],
    ['the start of a turn', async (lease) => writes.startTurn(lease, await firstTurn(), 1)],
    ['the outcome of a turn and its pull request', async (lease) => writes.completeTurn(lease, await firstTurn(), outcome)],
    ['the failure of a turn', async (lease) => writes.failTurn(lease, await firstTurn(), { code: 'model_error', message: 'boom' })],
    ['a retry (which releases the job)', async (lease) => writes.retryLater(lease, await firstTurn(), 1, { code: 'model_error', message: 'boom' }, 1_000)],
    ['a hand-back on shutdown (release)', async (lease) => writes.handBack(lease, await firstTurn())],
    ['settling the job', (lease) => writes.settle(lease), completeTurns],
    [
      'recording a local pull request',
      (lease) =>
        t.services.forges.local.openOrUpdatePullRequest(
          { id: project.id, repository: project.repository, ref: 'main', credentials: null },
          { base: 'main', head: `docwright/${jobId}`, title: 'Docs', body: 'Body' },
          (executor) => holdLease(t.services.database, lease, executor),
        ),
    ],
  ];

  test.each(writePaths)('%s is refused with lease_lost once another worker holds the job, and changes nothing', async (_name, write, prepare) => {
    const { stale, live } = await staleAndLive();
    await prepare?.();
    const before = await snapshot();
    const error = await rejection(write(stale));
    expect(error.code).toBe('lease_lost');
    expect(await snapshot()).toEqual(before);
    // The same write under the live token goes through: the refusal is the token's doing.
    await write(live);
    expect(await snapshot()).not.toEqual(before);
  });

  test('the check before a push (outside any transaction) refuses a stale lease', async () => {
    const { stale, live } = await staleAndLive();
    expect((await rejection(holdLease(t.services.database, stale))).code).toBe('lease_lost');
    await holdLease(t.services.database, live);
  });

  test('a lost lease is not extended; the live one is', async () => {
    const { stale, live } = await staleAndLive();
    expect(await t.services.queue.extendLease(stale, LEASE_MS)).toBe(false);
    expect(await t.services.queue.extendLease(live, LEASE_MS)).toBe(true);
  });

  test('a released lease writes nothing more, even before anyone claims the job again', async () => {
    const lease = await claim('worker-a');
    await writes.retryLater(lease, await firstTurn(), 1, { code: 'model_error', message: 'boom' }, 1_000);
    expect((await rejection(writes.event(lease, 'step', {}))).code).toBe('lease_lost');
    expect(await t.services.queue.extendLease(lease, LEASE_MS)).toBe(false);
  });

  test("a follow-up re-inserts the settled job's queue row without reviving an old token", async () => {
    const { stale, live } = await staleAndLive();
    await completeTurns();
    expect(await writes.settle(live)).toBe(true);
    expect(await t.services.database.db.selectFrom('job_queue').select('job_id').execute()).toEqual([]);
    await t.services.jobs.message(project, jobId, 'And another page');
    // Even worker A itself claiming the new row gets a token it never had.
    const again = await claim('worker-a');
    expect(again.token).toBeGreaterThan(live.token);
    expect((await rejection(writes.event(stale, 'step', {}))).code).toBe('lease_lost');
    expect((await rejection(writes.event(live, 'step', {}))).code).toBe('lease_lost');
    await writes.event(again, 'step', {});
  });

  test("a claim cannot take the job between a fenced write's check and its commit", async () => {
    const stale = await claim('worker-a');
    t.clock.advance(LEASE_MS + 1);
    let claimedMeanwhile: Promise<unknown> | null = null;
    await writes.fenced(stale, async (executor, now) => {
      // The lease has expired but nobody has claimed the job: the write is still the holder's.
      claimedMeanwhile = t.services.queue.claim('worker-b', LEASE_MS);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await executor.insertInto('job_events').values({ job_id: jobId, type: 'step', data: '{}', created_at: now }).execute();
    });
    const claimed = await claimedMeanwhile!;
    if (dialect === 'postgres') {
      // SKIP LOCKED passed the row the write held; the next claim takes it, after the commit.
      expect(claimed).toBeNull();
      expect(await t.services.queue.claim('worker-b', LEASE_MS)).toMatchObject({ jobId });
    } else {
      // SQLite: the claim waited for the write lock, and ran after the commit.
      expect(claimed).toMatchObject({ jobId });
    }
    expect((await rejection(writes.event(stale, 'step', {}))).code).toBe('lease_lost');
  });

  test('concurrent claims of one job: exactly one wins, with a token nobody else has', async () => {
    await t.services.jobs.create(project, 'Second job');
    const results = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((worker) => t.services.queue.claim(worker, LEASE_MS)));
    const claimed = results.filter((result) => result !== null);
    expect(claimed).toHaveLength(2);
    expect(new Set(claimed.map((result) => result.jobId)).size).toBe(2);
    expect(new Set(claimed.map((result) => result.token)).size).toBe(2);
  });
});
