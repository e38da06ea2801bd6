import { afterEach, expect, test } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { runCli } from '../helpers/run-cli.js';

let t: TestApp | undefined;
afterEach(async () => t?.close());

test('the OpenAPI document names the /mcp operations and their key-only security', async () => {
  t = await createTestApp('sqlite');
  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
    paths: Record<string, Record<string, { operationId?: string; security?: unknown; responses: Record<string, unknown> }>>;
  }>();
  const mcp = document.paths['/mcp'];
  expect(mcp?.post?.operationId).toBe('mcp');
  // GET and DELETE are answered 405 by the app, not documented as operations.
  expect(mcp?.get).toBeUndefined();
  expect(mcp?.delete).toBeUndefined();
  expect(mcp?.post?.security).toEqual([{ bearerAuth: [] }]);
  expect(Object.keys(mcp?.post?.responses ?? {})).toEqual(expect.arrayContaining(['200', '202', '401', '403']));
});

test('docwright mcp without a key or a project stops at once with a message on stderr and nothing on stdout', async () => {
  const noKey = await runCli(['mcp'], { DOCWRIGHT_URL: 'http://127.0.0.1:9', DOCWRIGHT_PROJECT: 'prj' }, { input: '' });
  expect(noKey).toMatchObject({ code: 1, stdout: '' });
  expect(noKey.stderr).toMatch(/DOCWRIGHT_API_KEY/);
  const noProject = await runCli(['mcp'], { DOCWRIGHT_URL: 'http://127.0.0.1:9', DOCWRIGHT_API_KEY: 'dw_admin_x' }, { input: '' });
  expect(noProject).toMatchObject({ code: 2, stdout: '' });
  expect(noProject.stderr).toMatch(/DOCWRIGHT_PROJECT/);
  expect(noProject.stderr).not.toContain('dw_admin_x');
});
