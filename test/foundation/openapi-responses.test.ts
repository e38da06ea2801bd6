import { connect } from 'node:net';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OpenApiResponses, realResponse, type RealResponse } from '../helpers/openapi-responses.js';
import { BACKENDS } from '../helpers/test-database.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';
import type { TestApp } from '../helpers/test-app.js';

// The main flows against a listening server, every answer checked against the document the
// same server serves: status, Content-Type, body, and headers.

describe.each(BACKENDS)('real answers match /openapi.json (%s)', (backend) => {
  let server: ListeningTestApp;
  let t: TestApp;
  let base: string;
  let projectId: string;
  let key: string;
  let spec: OpenApiResponses;
  const seen: string[] = [];

  beforeAll(async () => {
    server = await startListeningTestApp(backend, {}, { settings: { rateLimitPerHour: 3 } });
    ({ testApp: t, url: base, projectId, apiKey: key } = server);
    spec = new OpenApiResponses((await (await fetch(`${base}/openapi.json`)).json()) as OpenAPIV3_1.Document);
  });
  afterAll(async () => server.close());

  /** Sends the request, checks the answer against the document, returns it. */
  async function call(method: string, path: string, init: { body?: string; headers?: Record<string, string>; auth?: boolean } = {}): Promise<RealResponse> {
    const headers: Record<string, string> = { ...(init.auth === false ? {} : { authorization: `Bearer ${key}` }), ...init.headers };
    if (init.body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await realResponse(await fetch(`${base}${path}`, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) }));
    expect(spec.check(method, path, response)).toEqual([]);
    seen.push(`${method} ${response.status}`);
    return response;
  }

  test('agent jobs: create (and its replay), poll, list, message, conversation, archive, and their problems', async () => {
    const jobs = `/v2/agent/${projectId}`;
    const created = await call('POST', `${jobs}/job`, { body: JSON.stringify({ prompt: 'Fix the typo' }), headers: { 'idempotency-key': 'flow-1' } });
    expect(created.status).toBe(201);
    const job = JSON.parse(created.body) as { id: string };
    expect(created.headers.location).toBe(`${jobs}/job/${job.id}`);
    const replay = await call('POST', `${jobs}/job`, { body: JSON.stringify({ prompt: 'Fix the typo' }), headers: { 'idempotency-key': 'flow-1' } });
    expect([replay.status, replay.headers['idempotent-replayed'], replay.headers.location]).toEqual([201, 'true', created.headers.location]);
    expect((await call('POST', `${jobs}/job`, { body: JSON.stringify({ prompt: 'Other' }), headers: { 'idempotency-key': 'flow-1' } })).status).toBe(422);

    expect((await call('GET', `${jobs}/job/${job.id}`)).status).toBe(200);
    expect((await call('GET', `${jobs}/job/nope`)).status).toBe(404);
    expect((await call('GET', `${jobs}/jobs?status=active&limit=5`)).status).toBe(200);
    expect((await call('GET', `${jobs}/jobs?limit=0`)).status).toBe(400);
    expect((await call('POST', `${jobs}/job/${job.id}/message`, { body: JSON.stringify({ prompt: 'And the other one' }) })).status).toBe(200);
    expect((await call('GET', `${jobs}/job/${job.id}/messages`)).status).toBe(200);
    expect((await call('POST', `${jobs}/job`, { body: JSON.stringify({ prompt: '' }) })).status).toBe(400);
    expect((await call('POST', `${jobs}/job`, { body: JSON.stringify({ prompt: 'x' }), auth: false })).status).toBe(401);
    // The budget of 3 is spent (create, message … the 422 and 400 spent nothing): one more, then 429.
    expect((await call('POST', `${jobs}/job`, { body: JSON.stringify({ prompt: 'Third' }) })).status).toBe(201);
    const limited = await call('POST', `${jobs}/job`, { body: JSON.stringify({ prompt: 'Fourth' }) });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect((await call('POST', `${jobs}/job/${job.id}/archive`)).status).toBe(200);
    expect((await call('POST', `${jobs}/job/${job.id}/message`, { body: JSON.stringify({ prompt: 'Too late' }) })).status).toBe(409);
  });

  test('event streams are text/event-stream; a bad lastEventId is a 400 problem', async () => {
    const jobs = `/v2/agent/${projectId}`;
    // Past the rate-limit window the other test used up.
    t.clock.advance(3_700_000);
    const { id } = (await t.services.jobs.create(await t.services.projects.get(projectId), 'Stream me')).job;
    for (const path of [`${jobs}/job/${id}/events`, `${jobs}/jobs/events`]) {
      const controller = new AbortController();
      const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}`, 'last-event-id': '0' }, signal: controller.signal });
      const head: RealResponse = { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: '' };
      controller.abort();
      expect(spec.check('GET', path, head)).toEqual([]);
      expect(head.headers['content-type']).toMatch(/^text\/event-stream/);
    }
    expect((await call('GET', `${jobs}/job/${id}/events?lastEventId=-1`)).status).toBe(400);
  });

  test('analytics, health and the answers every route can give (413, 414, 415, 431)', async () => {
    expect((await call('GET', `/v1/analytics/${projectId}/visitors?dateFrom=2026-01-01&limit=10`)).status).toBe(200);
    expect((await call('GET', `/v1/analytics/${projectId}/visitors?dateFrom=tomorrow`)).status).toBe(400);
    const events = JSON.stringify({ events: [{ path: '/a', userAgent: 'Mozilla/5.0', ip: '203.0.113.9' }] });
    expect((await call('POST', `/v1/analytics/${projectId}/events`, { body: events })).status).toBe(202);
    expect((await call('GET', '/healthz', { auth: false })).status).toBe(200);
    expect((await call('GET', '/readyz', { auth: false })).status).toBe(200);
    expect((await call('GET', `/v1/projects/${projectId}`)).status).toBe(200);

    const jobs = `/v2/agent/${projectId}/job`;
    expect((await call('POST', jobs, { body: 'prompt=x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    const encoded = await call('POST', jobs, { body: JSON.stringify({ prompt: 'x' }), headers: { 'content-encoding': 'gzip' } });
    expect([encoded.status, JSON.parse(encoded.body).code, encoded.headers['accept-encoding']]).toEqual([415, 'unsupported_content_encoding', 'identity']);
    expect((await call('POST', jobs, { body: JSON.stringify({ prompt: 'x'.repeat(2_000_000) }) })).status).toBe(413);
    expect((await call('GET', `/v2/agent/${'p'.repeat(101)}/job/x`)).status).toBe(414);

    const tooLarge = await rawRequest(base, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(tooLarge.status).toBe(431);
    expect(spec.check('GET', '/healthz', tooLarge)).toEqual([]);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  test('cancel, usage, webhooks, the AI-reader reports and /mcp', async () => {
    const jobs = `/v2/agent/${projectId}`;
    const { id } = (await t.services.jobs.create(await t.services.projects.get(projectId), 'Cancel me')).job;
    expect((await call('POST', `${jobs}/job/${id}/cancel`)).status).toBe(200);
    expect((await call('POST', `${jobs}/job/nope/cancel`)).status).toBe(404);
    expect((await call('GET', `${jobs}/usage?from=2026-01&to=2026-02`)).status).toBe(200);
    expect((await call('GET', `${jobs}/usage?from=2026-13`)).status).toBe(400);

    const hooks = `/v1/projects/${projectId}/webhooks`;
    const created = await call('POST', hooks, { body: JSON.stringify({ url: 'https://hooks.example.com/docwright', events: ['job.completed'] }) });
    expect(created.status).toBe(201);
    const hook = (JSON.parse(created.body) as { webhook: { id: string } }).webhook;
    expect(created.headers.location).toBe(`${hooks}/${hook.id}`);
    expect((await call('POST', hooks, { body: JSON.stringify({ url: 'https://127.0.0.1/hook' }) })).status).toBe(400);
    expect((await call('GET', hooks)).status).toBe(200);
    expect((await call('GET', `${hooks}/${hook.id}`)).status).toBe(200);
    expect((await call('PATCH', `${hooks}/${hook.id}`, { body: JSON.stringify({ enabled: false }) })).status).toBe(200);
    expect((await call('POST', `${hooks}/${hook.id}/rotate-secret`, { body: JSON.stringify({ overlapSeconds: 3600 }) })).status).toBe(200);
    expect((await call('GET', `${hooks}/${hook.id}/deliveries`)).status).toBe(200);
    expect((await call('GET', `${hooks}/${hook.id}/deliveries/nope`)).status).toBe(404);
    expect((await call('DELETE', `${hooks}/${hook.id}`)).status).toBe(204);
    expect((await call('GET', `${hooks}/${hook.id}`)).status).toBe(404);

    const analytics = `/v1/analytics/${projectId}`;
    for (const report of ['views', 'visitors/daily', 'traffic', 'agents', 'pages', 'agent-errors', 'summary']) {
      expect((await call('GET', `${analytics}/${report}?dateFrom=2026-01-01&dateTo=2026-02-01`)).status, report).toBe(200);
    }

    const initialize = await call('POST', '/mcp', {
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'openapi-test', version: '1' } },
      }),
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(initialize.status).toBe(200);
  });

  test('a wrong method on a known path is 405 with Allow; an unknown path stays 404', async () => {
    const wrong = await fetch(`${base}/v2/agent/${projectId}/job/abc`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expect(wrong.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await wrong.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
    expect((await fetch(`${base}/v2/agent/${projectId}/job`, { method: 'GET' })).headers.get('allow')).toBe('POST');
    const unknown = await fetch(`${base}/v2/agent/${projectId}/nope`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
  });

  test('the flows above covered every kind of answer they should', () => {
    expect(new Set(seen)).toEqual(
      new Set([
        'POST 201',
        'POST 422',
        'GET 200',
        'GET 404',
        'GET 400',
        'POST 200',
        'POST 400',
        'POST 401',
        'POST 429',
        'POST 409',
        'POST 202',
        'POST 415',
        'POST 413',
        'GET 414',
        'PATCH 200',
        'DELETE 204',
        'POST 404',
      ]),
    );
  });
});

/** Writes a raw request and reads the whole answer (the server closes the connection). */
function rawRequest(base: string, request: string): Promise<RealResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}
