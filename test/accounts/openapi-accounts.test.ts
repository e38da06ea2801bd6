import { afterEach, expect, test } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
afterEach(async () => t.close());

test('the OpenAPI document lists every account and management route with tags, summary, schemas and cookieAuth', async () => {
  t = await createTestApp('sqlite');
  const document = (await t.app.inject({ url: '/openapi.json' })).json();
  expect(document.components.securitySchemes.cookieAuth).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'dw_session' });
  const routes: Array<[string, string, boolean]> = [
    ['/v1/session', 'get', false],
    ['/v1/session/setup', 'post', false],
    ['/v1/session', 'post', false],
    ['/v1/session', 'delete', false],
    ['/v1/users', 'get', true],
    ['/v1/users', 'post', true],
    ['/v1/users/{userId}', 'delete', true],
    ['/v1/users/{userId}', 'patch', true],
    ['/v1/users/{userId}/password-reset', 'post', true],
    ['/v1/session/password', 'post', true],
    ['/v1/session/everywhere', 'delete', true],
    ['/v1/projects', 'get', true],
    ['/v1/projects', 'post', true],
    ['/v1/projects/{projectId}', 'patch', true],
    ['/v1/projects/{projectId}', 'delete', true],
    ['/v1/projects/{projectId}', 'get', true],
    ['/v1/projects/{projectId}/keys', 'get', true],
    ['/v1/projects/{projectId}/keys', 'post', true],
    ['/v1/projects/{projectId}/keys/{keyId}', 'delete', true],
  ];
  for (const [path, method, secured] of routes) {
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path}`).toBeDefined();
    expect(operation.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
    expect(operation.summary, `${method} ${path}`).toEqual(expect.any(String));
    expect(
      Object.keys(operation.responses).some((status) => status.startsWith('2')),
      `${method} ${path}`,
    ).toBe(true);
    if (method !== 'get' || secured) expect(operation.responses['403'], `${method} ${path}`).toBeDefined();
    if (secured) {
      expect(operation.security, `${method} ${path}`).toContainEqual({ cookieAuth: [] });
      expect(operation.responses['401'], `${method} ${path}`).toBeDefined();
    }
  }
  expect(document.paths['/v1/projects/{projectId}/keys'].post.requestBody).toBeDefined();
  expect(document.paths['/v2/agent/{projectId}/job'].post.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
});
