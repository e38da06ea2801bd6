import { afterEach, describe, expect, test } from 'vitest';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { injectConnectionFaults, type ConnectionFault } from '../helpers/connection-faults.js';

/**
 * A job create whose database connection is cut at chosen points (deterministic; the
 * child-process test in dropped-connections.test.ts terminates real backends at random).
 * Whatever the point, the caller's answer matches what the database holds.
 */
describe('a job create losing its database connection [postgres]', () => {
  let t: TestApp;
  let projectId: string;
  let key: string;
  afterEach(async () => t.close());

  async function setUp(fault: ConnectionFault, statement: (text: string) => boolean): Promise<{ fired: () => boolean }> {
    t = await createTestApp('postgres');
    const project = await createTestProject(t.services);
    projectId = project.id;
    key = (await t.services.keys.create({ projectId })).key;
    let armed = true;
    const raw = t.testDatabase.database.raw;
    if (raw.dialect !== 'postgres') throw new Error('PostgreSQL only');
    injectConnectionFaults(raw.pool, (text) => {
      if (!armed || !statement(text)) return undefined;
      armed = false;
      return fault;
    });
    return { fired: () => !armed };
  }

  const create = (prompt: string, idempotencyKey?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/agent/${projectId}/job`,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      payload: JSON.stringify({ prompt }),
    });
  const jobIds = async () => (await t.services.database.db.selectFrom('jobs').select('id').execute()).map((row) => row.id);
  const charges = async () =>
    Number(
      (
        await t.services.database.db
          .selectFrom('rate_limit_hits')
          .select(({ fn }) => fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('cut after the COMMIT reached the server: the job exists, so the answer is 201, and a retry with the key replays it', async () => {
    const faults = await setUp('after', (text) => text === 'commit');
    const first = await create('docs for the lost answer', 'lost-answer');
    expect(faults.fired()).toBe(true);
    expect(first.statusCode).toBe(201);
    expect(await jobIds()).toEqual([first.json().id]);
    expect(first.headers['ratelimit']).toBe('"agent";r=99;t=3600');
    const retry = await create('docs for the lost answer', 'lost-answer');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
    expect(await jobIds()).toHaveLength(1);
    expect(await charges()).toBe(1);
  });

  test('cut on the first statement after the COMMIT: the stored response committed with the job, so a retry replays it', async () => {
    let committed = false;
    let answered = false;
    await setUp('before', (text) => {
      if (committed) return !answered;
      committed = text === 'commit';
      return false;
    });
    const first = await create('docs kept with their answer', 'kept');
    answered = true;
    expect(first.statusCode).toBe(201);
    const retry = await create('docs kept with their answer', 'kept');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await jobIds()).toEqual([first.json().id]);
  });

  test('a message cut after its COMMIT: 200, and the turn exists once', async () => {
    let armed = false;
    await setUp('after', (text) => armed && text === 'commit');
    const created = await create('first turn');
    expect(created.statusCode).toBe(201);
    armed = true;
    const message = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${projectId}/job/${created.json().id}/message`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'follow-up' },
      payload: JSON.stringify({ prompt: 'second turn' }),
    });
    armed = false;
    expect(message.statusCode).toBe(200);
    const turns = await t.services.database.db.selectFrom('job_turns').select('prompt').where('job_id', '=', created.json().id).orderBy('sequence').execute();
    expect(turns.map((turn) => turn.prompt)).toEqual(['first turn', 'second turn']);
    expect(await charges()).toBe(2);
  });

  for (const [where, statement] of [
    ['instead of the COMMIT', (text: string) => text === 'commit'],
    ['on the insert of the job', (text: string) => text.startsWith('insert into "jobs"')],
  ] as const) {
    test(`cut ${where}: 503 with Retry-After, no job, no charge; the retry with the key creates the job once`, async () => {
      const faults = await setUp('before', statement);
      const first = await create('docs for the cut request', 'cut');
      expect(faults.fired()).toBe(true);
      expect(first.statusCode).toBe(503);
      expect(first.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(first.headers['retry-after']).toBe('2');
      expect(first.json()).toMatchObject({ status: 503, code: 'database_unavailable' });
      expect(first.body).not.toMatch(/terminated|stack|postgres:/i);
      expect(await jobIds()).toEqual([]);
      expect(await charges()).toBe(0);

      const retry = await create('docs for the cut request', 'cut');
      expect(retry.statusCode).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      const again = await create('docs for the cut request', 'cut');
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().id).toBe(retry.json().id);
      expect(await jobIds()).toEqual([retry.json().id]);
      expect(await charges()).toBe(1);
    });
  }
});
