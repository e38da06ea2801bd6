import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { MAX_PROMPT_LENGTH } from '../../src/jobs/job-schemas.js';

describe.each(BACKENDS)('job API without a worker [%s]', (dialect) => {
  let t: TestApp;
  let projectId: string;
  let key: string;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    projectId = (await createTestProject(t.services)).id;
    key = (await t.services.keys.create({ projectId })).key;
  });
  afterEach(async () => t.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = (path: string) => t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });

  test('prompt validation answers 400 with field errors and charges nothing', async () => {
    const cases: unknown[] = [{}, { prompt: '' }, { prompt: 42 }, { prompt: null }, { prompt: 'x'.repeat(MAX_PROMPT_LENGTH + 1) }, []];
    for (const body of cases) {
      const response = await post(`/v2/agent/${projectId}/job`, body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 50)).toBe(400);
      const problem = response.json();
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors.length).toBeGreaterThan(0);
      if (!Array.isArray(body)) expect(problem.errors[0].path).toBe('prompt');
      expect(response.headers['ratelimit']).toBe('"agent";r=100;t=0');
    }
    expect((await post(`/v2/agent/${projectId}/job`, { prompt: 'x'.repeat(MAX_PROMPT_LENGTH) })).statusCode).toBe(201);
    expect((await get(`/v2/agent/${projectId}/jobs`)).json().jobs).toHaveLength(1);
  });

  test('a prompt of only whitespace is a 400 naming prompt, on create and on a follow-up', async () => {
    const { job } = await t.services.jobs.create(await t.services.projects.get(projectId), 'Document the API');
    for (const prompt of [' ', '\n\t  \r\n', '\u00a0\u2003']) {
      for (const path of [`/v2/agent/${projectId}/job`, `/v2/agent/${projectId}/job/${job.id}/message`]) {
        const response = await post(path, { prompt });
        expect(response.statusCode, `${path} ${JSON.stringify(prompt)}`).toBe(400);
        const problem = response.json();
        expect(problem.code).toBe('validation_failed');
        expect(problem.errors).toEqual([expect.objectContaining({ path: 'prompt', message: 'must not be only whitespace' })]);
      }
    }
    // Whitespace around words is still the user's prompt, kept as sent.
    expect((await post(`/v2/agent/${projectId}/job`, { prompt: '  Fix the links\n' })).statusCode).toBe(201);
    expect((await get(`/v2/agent/${projectId}/jobs`)).json().jobs).toHaveLength(2);
  });

  test('unknown jobs are 404; jobs of another project are invisible', async () => {
    expect((await get(`/v2/agent/${projectId}/job/nope`)).statusCode).toBe(404);
    const other = await createTestProject(t.services, { name: 'Other' });
    const { job } = await t.services.jobs.create(other, 'hello');
    expect((await get(`/v2/agent/${projectId}/job/${job.id}`)).statusCode).toBe(404);
    expect((await post(`/v2/agent/${projectId}/job/${job.id}/message`, { prompt: 'hi' })).statusCode).toBe(404);
  });

  test('a job is accepted together with its queued work', async () => {
    const created = (await post(`/v2/agent/${projectId}/job`, { prompt: 'Document the API' })).json();
    const queued = await t.services.database.db.selectFrom('job_queue').selectAll().where('job_id', '=', created.id).execute();
    expect(queued).toHaveLength(1);
    const turns = await t.services.database.db.selectFrom('job_turns').selectAll().where('job_id', '=', created.id).execute();
    expect(turns.map((turn) => [turn.sequence, turn.status, turn.prompt])).toEqual([[1, 'queued', 'Document the API']]);
    expect((await get(`/v2/agent/${projectId}/job/${created.id}`)).json()).toEqual(created);
  });

  test('list: newest first, status filter, paging with exact hasMore, bad parameters are 400', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      ids.push((await post(`/v2/agent/${projectId}/job`, { prompt: `job ${index}` })).json().id);
      t.clock.advance(1_000);
    }
    const page1 = (await get(`/v2/agent/${projectId}/jobs?limit=2`)).json();
    const page3 = (await get(`/v2/agent/${projectId}/jobs?limit=2&offset=4`)).json();
    expect(page1.jobs.map((job: { id: string }) => job.id)).toEqual([ids[4], ids[3]]);
    expect(page1.hasMore).toBe(true);
    expect(page3.jobs.map((job: { id: string }) => job.id)).toEqual([ids[0]]);
    expect(page3.hasMore).toBe(false);
    await post(`/v2/agent/${projectId}/job/${ids[0]}/archive`, {});
    expect((await get(`/v2/agent/${projectId}/jobs?status=archived`)).json().jobs.map((job: { id: string }) => job.id)).toEqual([ids[0]]);
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'status=running', 'limit=abc']) {
      const response = await get(`/v2/agent/${projectId}/jobs?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().errors.length, query).toBeGreaterThan(0);
    }
  });

  test('archive is final and idempotent; a message re-activates a completed job', async () => {
    const created = (await post(`/v2/agent/${projectId}/job`, { prompt: 'first' })).json();
    await t.services.database.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', created.id).execute();
    await t.services.database.db.deleteFrom('job_queue').execute();
    const reactivated = await post(`/v2/agent/${projectId}/job/${created.id}/message`, { prompt: 'second' });
    expect(reactivated.statusCode).toBe(200);
    expect(reactivated.json().status).toBe('active');
    expect(await t.services.database.db.selectFrom('job_queue').selectAll().execute()).toHaveLength(1);
    const first = (await post(`/v2/agent/${projectId}/job/${created.id}/archive`, {})).json();
    t.clock.advance(5_000);
    const second = (await post(`/v2/agent/${projectId}/job/${created.id}/archive`, {})).json();
    expect(second).toEqual(first);
    expect(await t.services.database.db.selectFrom('job_queue').selectAll().execute()).toHaveLength(0);
    const turns = await t.services.database.db.selectFrom('job_turns').select('status').where('job_id', '=', created.id).execute();
    expect(turns.every((turn) => turn.status === 'cancelled')).toBe(true);
  });

  test('Idempotency-Key: same body replays, other body 422, in flight 409, invalid key 400', async () => {
    const path = `/v2/agent/${projectId}/job`;
    const first = await post(path, { prompt: 'once' }, { 'idempotency-key': 'abc-123' });
    const replay = await post(path, { prompt: 'once' }, { 'idempotency-key': 'abc-123' });
    expect(first.statusCode).toBe(201);
    expect(replay.statusCode).toBe(201);
    expect(replay.json()).toEqual(first.json());
    expect(replay.body).toBe(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await get(`/v2/agent/${projectId}/jobs`)).json().jobs).toHaveLength(1);
    const other = await post(path, { prompt: 'different' }, { 'idempotency-key': 'abc-123' });
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('idempotency_key_reused');
    await t.services.database.db
      .insertInto('idempotency_keys')
      .values({
        project_id: projectId,
        key: 'busy',
        operation: '/v2/agent/:projectId/job',
        request_hash: 'x',
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: t.clock.now(),
        expires_at: t.clock.now() + 1_000,
      })
      .execute();
    const busy = await post(path, { prompt: 'once' }, { 'idempotency-key': 'busy' });
    expect(busy.statusCode).toBe(422);
    const invalid = await post(path, { prompt: 'once' }, { 'idempotency-key': 'has space' });
    expect(invalid.statusCode).toBe(400);
    // After 24 hours the key may be used again.
    t.clock.advance(24 * 3_600_000 + 1);
    const later = await post(path, { prompt: 'different' }, { 'idempotency-key': 'abc-123' });
    expect(later.statusCode).toBe(201);
    expect(later.json().id).not.toBe(first.json().id);
  });

  test('a request in flight under the same key gets 409', async () => {
    const path = `/v2/agent/${projectId}/job`;
    const body = { prompt: 'same' };
    const request = {
      method: 'POST' as const,
      url: path,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'race' },
      payload: JSON.stringify(body),
    };
    // The record a first request leaves while its handler still runs.
    await t.services.database.db
      .insertInto('idempotency_keys')
      .values({
        project_id: projectId,
        key: 'race',
        operation: '/v2/agent/:projectId/job',
        request_hash: requestHashOf(path, body),
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: t.clock.now(),
        expires_at: t.clock.now() + 86_400_000,
      })
      .execute();
    const response = await t.app.inject(request);
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('idempotency_request_in_progress');
  });
});

function requestHashOf(path: string, body: unknown): string {
  return createHash('sha256')
    .update(`/v2/agent/:projectId/job\n${path}\n${JSON.stringify(body)}`)
    .digest('hex');
}
