import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';

describe('problem bodies and operations routes', () => {
  let t: TestApp;
  let key: string;
  let projectId: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { DOCWRIGHT_BODY_LIMIT: '2048' });
    projectId = (await createTestProject(t.services)).id;
    key = (await t.services.keys.create({ projectId })).key;
    t.app.post('/test/echo', { config: { access: 'public' } }, async (request) => ({ received: request.body }));
    t.app.get('/test/boom', async () => {
      throw new Error(`secret ${key} at /etc/passwd`);
    });
  });
  afterAll(async () => t.close());

  const expectProblem = (response: { statusCode: number; headers: Record<string, unknown>; json(): Record<string, unknown> }, status: number, code: string) => {
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = response.json();
    expect(body).toMatchObject({ status, code, type: `urn:docwright:problem:${code}` });
    expect(typeof body.error).toBe('string');
    expect(body.error).toBe(body.detail);
    expect(body.requestId).toBe(response.headers['x-request-id']);
    return body;
  };

  test('unknown routes answer a 404 problem', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/nope' }), 404, 'not_found');
  });

  test('malformed JSON is a 400', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"a":' });
    expectProblem(response, 400, 'invalid_json');
  });

  test('a wrong content type is a 400', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/xml' }, payload: '<a/>' });
    expectProblem(response, 415, 'unsupported_content_type');
  });

  test('a body over the configured limit is a 413', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ a: 'x'.repeat(4096) }),
    });
    expectProblem(response, 413, 'payload_too_large');
  });

  test('a thrown internal error leaks neither message nor stack', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/boom' });
    const body = expectProblem(response, 500, 'internal_error');
    expect(response.body).not.toContain(key);
    expect(response.body).not.toContain('passwd');
    expect(response.body).not.toMatch(/at .*\.ts/);
    expect(body.stack).toBeUndefined();
  });

  test('an over-long path parameter is a problem too', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/v1/projects/${'x'.repeat(101)}`, headers: { authorization: `Bearer ${key}` } });
    expectProblem(response, 414, 'uri_too_long');
    expectProblem(await t.app.inject({ method: 'GET', url: '/v1/projects/%E0%A4%A' }), 400, 'bad_url');
  });

  test('every response carries X-Request-Id, and a safe caller id is echoed', async () => {
    const own = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-123' } });
    expect(own.headers['x-request-id']).toBe('trace-123');
    const unsafe = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\twith tab' } });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('healthz and readyz', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready', database: 'sqlite' });
  });

  test('the OpenAPI document and the reference page are served without a CDN', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(spec.openapi).toBe('3.1.0');
    expect(Object.keys(spec.paths)).toContain('/v1/projects/{projectId}');
    expect(spec.components.securitySchemes.bearerAuth.scheme).toBe('bearer');
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui');
    const externalAssets = [...page.body.matchAll(/(?:src|href)="(https?:[^"]+)"/g)].map((match) => match[1]);
    expect(externalAssets).toEqual([]);
    const script = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(script.statusCode).toBe(200);
  });
});

describe('readiness when the database is gone', () => {
  test('readyz answers 503 as a problem', async () => {
    const t = await createTestApp('sqlite');
    await t.testDatabase.database.close();
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json().code).toBe('not_ready');
    await t.app.close();
  });
});

describe('bodies', () => {
  test('an empty JSON body is no body: fine where none is needed, a validation error where one is', async () => {
    const t = await createTestApp('sqlite');
    const projectId = (await createTestProject(t.services)).id;
    const key = (await t.services.keys.create({ projectId })).key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const create = await t.app.inject({ method: 'POST', url: `/v2/agent/${projectId}/job`, headers, payload: '' });
    expect(create.statusCode).toBe(400);
    expect(create.json().code).toBe('validation_failed');
    const job = (await t.app.inject({ method: 'POST', url: `/v2/agent/${projectId}/job`, headers, payload: '{"prompt":"x"}' })).json();
    const archive = await t.app.inject({ method: 'POST', url: `/v2/agent/${projectId}/job/${job.id}/archive`, headers, payload: '' });
    expect(archive.statusCode).toBe(200);
    const poisoned = await t.app.inject({ method: 'POST', url: `/v2/agent/${projectId}/job`, headers, payload: '{"prompt":"x","__proto__":{"admin":true}}' });
    expect(poisoned.statusCode).toBe(400);
    await t.close();
  });
});
