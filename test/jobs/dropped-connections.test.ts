import pg from 'pg';
import { afterEach, describe, expect, inject, test } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { createSeededRandom } from '../../bench/lib/seeded-random.js';
import { startApiProcess } from '../helpers/api-process.js';
import type { DocwrightProcess } from '../helpers/docwright-process.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';

const APPLICATION_NAME = 'docwright-api-under-test';
const ROUNDS = 12;
const PER_ROUND = 16;

interface Answer {
  prompt: string;
  idempotencyKey: string | undefined;
  status: number;
  contentType: string | null;
  retryAfter: string | null;
  body: { id?: string; code?: string };
}

/**
 * Issue 12, test 4: PostgreSQL drops the API process's connections (pg_terminate_backend
 * on every backend it holds) while job creates are in flight, again and again. Every
 * caller is told the truth: a 2xx and the job exists, or an error (503 with Retry-After
 * and a problem body, never a bare 500) and it does not. A retry with the same
 * Idempotency-Key never makes a second job, and the pool recovers.
 */
describe("job creates while PostgreSQL terminates the server's connections [postgres]", () => {
  let t: TestApp;
  let server: DocwrightProcess | undefined;
  let admin: pg.Client | undefined;
  afterEach(async () => {
    await server?.kill();
    await admin?.end();
    await t.close();
  });

  test('each answer matches the database; keyed retries make no second job; the next requests succeed', async () => {
    t = await createTestApp('postgres', { DOCWRIGHT_RATE_LIMIT: '100000' }, { clock: systemClock });
    const project = await createTestProject(t.services);
    const key = (await t.services.keys.create({ projectId: project.id })).key;
    // PGAPPNAME names every connection of the child, so only its backends are terminated.
    server = await startApiProcess(t, { DOCWRIGHT_RATE_LIMIT: '100000', PGAPPNAME: APPLICATION_NAME });
    admin = new pg.Client(inject('postgresUrl'));
    await admin.connect();
    const terminate = async (): Promise<number> =>
      (await admin!.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [APPLICATION_NAME])).rowCount ?? 0;

    const create = async (prompt: string, idempotencyKey?: string): Promise<Answer> => {
      const response = await fetch(`${server!.url!}/v2/agent/${project.id}/job`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
        },
        body: JSON.stringify({ prompt }),
      });
      return {
        prompt,
        idempotencyKey,
        status: response.status,
        contentType: response.headers.get('content-type'),
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as Answer['body'],
      };
    };

    const random = createSeededRandom(4);
    const answers: Answer[] = [];
    let terminated = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const inFlight = Array.from({ length: PER_ROUND }, (_, index) =>
        create(`round ${round} request ${index}`, index % 2 === 0 ? `key-${round}-${index}` : undefined),
      );
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 25)));
      terminated += await terminate();
      answers.push(...(await Promise.all(inFlight)));
    }
    const failed = answers.filter((answer) => answer.status !== 201);
    // The faults must have hit requests, and not all of them, for the test to mean anything.
    expect(terminated).toBeGreaterThan(ROUNDS);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(answers.length);
    for (const answer of failed) {
      expect(answer.status, JSON.stringify(answer)).toBe(503);
      expect(answer.contentType).toMatch(/^application\/problem\+json/);
      expect(answer.body.code).toMatch(/^database_(unavailable|busy)$/);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }

    // Retry what failed with a key, as a client following Retry-After would (no more faults).
    const retries: Answer[] = [];
    for (const answer of failed.filter((candidate) => candidate.idempotencyKey !== undefined)) {
      let retry = await create(answer.prompt, answer.idempotencyKey);
      for (let attempt = 0; retry.status === 503 && attempt < 10; attempt += 1) retry = await create(answer.prompt, answer.idempotencyKey);
      // 409: the key's record outlived its failed request (5 minutes); it made no job either.
      expect([201, 409]).toContain(retry.status);
      retries.push(retry);
    }
    // The pool recovered: every request of a round without faults succeeds.
    const calm = await Promise.all(Array.from({ length: PER_ROUND }, (_, index) => create(`calm request ${index}`)));
    expect(calm.map((answer) => answer.status)).toEqual(Array<number>(PER_ROUND).fill(201));

    const all = [...answers, ...retries, ...calm];
    const jobs = await t.services.database.db
      .selectFrom('jobs')
      .innerJoin('job_turns', 'job_turns.job_id', 'jobs.id')
      .select(['jobs.id', 'job_turns.prompt'])
      .where('job_turns.sequence', '=', 1)
      .execute();
    // Exactly the jobs some caller was told about, one per prompt.
    expect(new Set(jobs.map((job) => job.id))).toEqual(new Set(all.filter((answer) => answer.status === 201).map((answer) => answer.body.id)));
    expect(new Set(jobs.map((job) => job.prompt)).size).toBe(jobs.length);
    for (const job of jobs) {
      const told = all.filter((answer) => answer.prompt === job.prompt && answer.status === 201);
      expect(new Set(told.map((answer) => answer.body.id))).toEqual(new Set([job.id]));
    }
    // And the budget was charged once per job: failed requests rolled their charge back.
    const charges = await t.services.database.db
      .selectFrom('rate_limit_hits')
      .select(({ fn }) => fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(charges.n)).toBe(jobs.length);
  });
});
