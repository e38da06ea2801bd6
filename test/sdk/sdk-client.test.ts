import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createDocwrightClient, DocwrightApiError, DocwrightNetworkError, ok, retryingFetch, type DocwrightClient } from '../../packages/sdk/src/index.js';
import { freePort } from '../helpers/free-port.js';
import { BACKENDS } from '../helpers/test-database.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';
import type { TestApp } from '../helpers/test-app.js';

// The SDK against a listening server: typed calls through the whole job flow and analytics,
// typed errors with the problem body and the answer's headers, and bounded retries of 429.

describe.each(BACKENDS)('the SDK against a running server (%s)', (backend) => {
  let server: ListeningTestApp;
  let t: TestApp;
  let baseUrl: string;
  let projectId: string;
  let client: DocwrightClient;

  beforeAll(async () => {
    server = await startListeningTestApp(backend, {}, { settings: { rateLimitPerHour: 2 } });
    ({ testApp: t, url: baseUrl, projectId } = server);
    client = createDocwrightClient({ baseUrl, apiKey: server.apiKey, retry: false });
  });
  afterAll(async () => server.close());

  test('create, poll, list, message, conversation, archive and visitors, typed', async () => {
    const path = { projectId };
    const job = await ok(
      client.POST('/v2/agent/{projectId}/job', { params: { path, header: { 'Idempotency-Key': 'sdk-1' } }, body: { prompt: 'Fix the typo' } }),
    );
    expect(job).toMatchObject({ status: 'active', prLink: null, source: { ref: 'main' } });
    const polled = await ok(client.GET('/v2/agent/{projectId}/job/{id}', { params: { path: { projectId, id: job.id } } }));
    expect(polled.id).toBe(job.id);
    const { jobs, hasMore } = await ok(client.GET('/v2/agent/{projectId}/jobs', { params: { path, query: { status: 'active', limit: 10 } } }));
    expect([jobs.map((listed) => listed.id), hasMore]).toEqual([[job.id], false]);
    expect(
      (await ok(client.POST('/v2/agent/{projectId}/job/{id}/message', { params: { path: { projectId, id: job.id } }, body: { prompt: 'More' } }))).id,
    ).toBe(job.id);
    const { messages } = await ok(client.GET('/v2/agent/{projectId}/job/{id}/messages', { params: { path: { projectId, id: job.id } } }));
    expect(messages.map((turn) => turn.prompt)).toEqual(['Fix the typo', 'More']);
    expect((await ok(client.POST('/v2/agent/{projectId}/job/{id}/archive', { params: { path: { projectId, id: job.id } } }))).status).toBe('archived');
    const visitors = await ok(client.GET('/v1/analytics/{projectId}/visitors', { params: { path, query: { dateFrom: '2026-01-01' } } }));
    expect(visitors).toEqual({ totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
  });

  test('errors are DocwrightApiError with the problem body and the headers; an unreachable server is DocwrightNetworkError', async () => {
    const missing = await client.GET('/v2/agent/{projectId}/job/{id}', { params: { path: { projectId, id: 'nope' } } }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(DocwrightApiError);
    const problem = missing as DocwrightApiError;
    expect([problem.status, problem.code, problem.problem?.detail, problem.requestId]).toEqual([
      404,
      'not_found',
      expect.any(String),
      problem.headers.get('x-request-id'),
    ]);

    const invalid = (await client
      .POST('/v2/agent/{projectId}/job', { params: { path: { projectId } }, body: { prompt: '' } })
      .catch((error: unknown) => error)) as DocwrightApiError;
    expect([invalid.status, invalid.code, invalid.problem?.errors?.[0]?.path]).toEqual([400, 'validation_failed', 'prompt']);
    expect(invalid.headers.get('ratelimit')).toMatch(/^"agent";r=\d+;t=\d+$/);

    // The budget of 2 is spent: the 429 carries Retry-After and the RateLimit headers.
    const limited = (await client
      .POST('/v2/agent/{projectId}/job', { params: { path: { projectId } }, body: { prompt: 'Third' } })
      .catch((error: unknown) => error)) as DocwrightApiError;
    expect([limited.status, limited.code]).toEqual([429, 'rate_limited']);
    expect(limited.retryAfterSeconds).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-policy')).toBe('"agent";q=2;w=3600');

    const nowhere = createDocwrightClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: 'dw_admin_x' });
    const unreachable = await nowhere.GET('/healthz').catch((error: unknown) => error);
    expect(unreachable).toBeInstanceOf(DocwrightNetworkError);
    expect((unreachable as DocwrightNetworkError).reason).toMatch(/ECONNREFUSED/);
  });

  test('a 429 is retried after its Retry-After when that is short enough; a long one is returned at once', async () => {
    const waits: number[] = [];
    const sleep = vi.fn(async (milliseconds: number) => {
      waits.push(milliseconds);
      // The window moves on while the client waits: the retry finds a free slot.
      t.clock.advance(milliseconds);
    });
    const retrying = createDocwrightClient({
      baseUrl,
      apiKey: (await t.services.keys.create({ projectId, scope: 'admin' })).key,
      retry: { maxRetries: 2, maxDelaySeconds: 7_200, sleep },
    });
    const job = await ok(retrying.POST('/v2/agent/{projectId}/job', { params: { path: { projectId } }, body: { prompt: 'After the wait' } }));
    expect(job.status).toBe('active');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);

    // Fill the window again, then a client that waits at most 5 s gets the 429 at once.
    await ok(client.POST('/v2/agent/{projectId}/job', { params: { path: { projectId } }, body: { prompt: 'Fill' } }));
    const impatient = createDocwrightClient({
      baseUrl,
      apiKey: (await t.services.keys.create({ projectId, scope: 'admin' })).key,
      retry: { maxDelaySeconds: 5, sleep },
    });
    const refused = (await impatient
      .POST('/v2/agent/{projectId}/job', { params: { path: { projectId } }, body: { prompt: 'Now' } })
      .catch((error: unknown) => error)) as DocwrightApiError;
    expect(refused.status).toBe(429);
    expect(waits).toHaveLength(1);
  });
});

describe('retryingFetch', () => {
  const answer = (status: number, headers: Record<string, string> = {}): Response => new Response(status === 200 ? '{}' : '', { status, headers });

  test('retries 429 and 503-with-Retry-After at most maxRetries times, sending the body every time', async () => {
    const bodies: string[] = [];
    const answers = [answer(429, { 'retry-after': '2' }), answer(503, { 'retry-after': '1' }), answer(429)];
    const waits: number[] = [];
    const send = retryingFetch(
      async (request) => {
        bodies.push(await request.text());
        return answers.shift() ?? answer(200);
      },
      { maxRetries: 2, sleep: async (milliseconds) => void waits.push(milliseconds) },
    );
    const response = await send(new Request('http://x/y', { method: 'POST', body: '{"prompt":"p"}' }));
    expect(response.status).toBe(429);
    expect(waits).toEqual([2_000, 1_000]);
    expect(bodies).toEqual(['{"prompt":"p"}', '{"prompt":"p"}', '{"prompt":"p"}']);
  });

  test('does not retry a 503 without Retry-After, other errors, or when turned off', async () => {
    for (const status of [503, 500, 400]) {
      let calls = 0;
      const send = retryingFetch(async () => (calls++, answer(status)), { sleep: async () => {} });
      expect((await send(new Request('http://x/'))).status).toBe(status);
      expect(calls).toBe(1);
    }
    let calls = 0;
    const off = retryingFetch(async () => (calls++, answer(429, { 'retry-after': '1' })), { maxRetries: 0 });
    expect((await off(new Request('http://x/'))).status).toBe(429);
    expect(calls).toBe(1);
  });
});
