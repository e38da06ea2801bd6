import { generateKeyPairSync, sign } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startFakeGitHubServer, type FakeGitHubServer } from '../fakes/fake-github-server.js';
import { commitFiles, createBareRepository, fixtureGit, temporaryDirectory } from './git-fixtures.js';

/** The fake must behave like GitHub where the forge depends on it; checked here with raw HTTP. */
const TOKEN = 'ghp_FakeServerToken0123456789abcdefghijk';
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
let temp: ReturnType<typeof temporaryDirectory>;
let fake: FakeGitHubServer;
let now: number;

beforeEach(async () => {
  temp = temporaryDirectory();
  const bare = createBareRepository(join(temp.path, 'root', 'acme', 'docs.git'));
  const clone = join(temp.path, 'clone');
  fixtureGit(temp.path, 'clone', '--quiet', bare, clone);
  fixtureGit(clone, 'checkout', '--quiet', '-b', 'feature');
  commitFiles(clone, { 'x.md': 'x\n' }, 'Feature');
  fixtureGit(clone, 'push', '--quiet', 'origin', 'feature', 'main:empty');
  now = Date.UTC(2026, 0, 1);
  fake = await startFakeGitHubServer({
    tokens: [TOKEN],
    gitRoot: join(temp.path, 'root'),
    apps: [{ appId: '42', publicKey: keys.publicKey, installationId: '7' }],
    now: () => now,
  });
});
afterEach(async () => {
  await fake.close();
  temp.cleanup();
});

/** A response body, read by the tests' assertions like light-my-request's json(). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see eslint.config.js on tests reading bodies as any
type ResponseBody = any;

async function call(
  method: string,
  path: string,
  body?: unknown,
  authorization: string | null = `token ${TOKEN}`,
): Promise<{ status: number; json: ResponseBody }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== null) headers.authorization = authorization;
  const response = await fetch(`${fake.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

function jwt(claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${sign('RSA-SHA256', Buffer.from(unsigned), keys.privateKey).toString('base64url')}`;
}

describe('fake GitHub server', () => {
  test('authentication answers like GitHub', async () => {
    expect(await call('GET', '/repos/acme/docs/pulls', undefined, null)).toMatchObject({ status: 401, json: { message: 'Requires authentication' } });
    expect(await call('GET', '/repos/acme/docs/pulls', undefined, 'token nope')).toMatchObject({
      status: 401,
      json: { message: 'Bad credentials', status: '401' },
    });
    expect(await call('GET', '/repos/acme/other/pulls')).toMatchObject({ status: 404, json: { message: 'Not Found' } });
    expect(await call('GET', '/repos/acme/docs')).toMatchObject({ status: 200, json: { full_name: 'acme/docs' } });
  });

  test('pull request validation: missing fields, unknown branches, no commits, duplicates', async () => {
    expect((await call('POST', '/repos/acme/docs/pulls', { head: 'feature', base: 'main' })).json.errors).toEqual([
      { resource: 'PullRequest', field: 'title', code: 'missing_field' },
    ]);
    expect((await call('POST', '/repos/acme/docs/pulls', { title: 't', head: 'ghost', base: 'main' })).json.errors).toEqual([
      { resource: 'PullRequest', field: 'head', code: 'invalid' },
    ]);
    const none = await call('POST', '/repos/acme/docs/pulls', { title: 't', head: 'empty', base: 'main' });
    expect(none).toMatchObject({ status: 422, json: { message: 'Validation Failed', errors: [{ message: 'No commits between main and empty' }] } });

    const created = await call('POST', '/repos/acme/docs/pulls', { title: 'T', head: 'acme:feature', base: 'main', body: 'B' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      number: 1,
      state: 'open',
      title: 'T',
      body: 'B',
      head: { ref: 'feature', label: 'acme:feature' },
      user: { login: 'docs-maintainer' },
    });
    const duplicate = await call('POST', '/repos/acme/docs/pulls', { title: 'T', head: 'feature', base: 'main' });
    expect(duplicate.status).toBe(422);
    expect(duplicate.json.errors).toEqual([{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for acme:feature.' }]);
  });

  test('list filters by state and head; PATCH edits and closes', async () => {
    await call('POST', '/repos/acme/docs/pulls', { title: 'T', head: 'feature', base: 'main' });
    expect((await call('GET', '/repos/acme/docs/pulls?state=open&head=acme:feature')).json).toHaveLength(1);
    expect((await call('GET', '/repos/acme/docs/pulls?state=open&head=acme:other')).json).toHaveLength(0);
    expect((await call('PATCH', '/repos/acme/docs/pulls/1', { title: 'New', state: 'closed' })).json).toMatchObject({ title: 'New', state: 'closed' });
    expect((await call('GET', '/repos/acme/docs/pulls')).json).toHaveLength(0);
    expect((await call('GET', '/repos/acme/docs/pulls?state=all')).json).toHaveLength(1);
    expect((await call('PATCH', '/repos/acme/docs/pulls/9', { title: 'x' })).status).toBe(404);
  });

  test('list pages like GitHub: per_page, page, a Link header to the next and last pages; an unknown state is 422', async () => {
    await call('POST', '/repos/acme/docs/pulls', { title: 'T', head: 'feature', base: 'main' });
    await call('PATCH', '/repos/acme/docs/pulls/1', { state: 'closed' });
    await call('POST', '/repos/acme/docs/pulls', { title: 'T2', head: 'feature', base: 'main' });
    const first = await fetch(`${fake.url}/repos/acme/docs/pulls?state=all&per_page=1`, { headers: { authorization: `token ${TOKEN}` } });
    expect(((await first.json()) as Array<{ number: number }>).map((pull) => pull.number)).toEqual([2]);
    expect(first.headers.get('link')).toBe(
      `<${fake.url}/repos/acme/docs/pulls?state=all&per_page=1&page=2>; rel="next", <${fake.url}/repos/acme/docs/pulls?state=all&per_page=1&page=2>; rel="last"`,
    );
    const second = await fetch(`${fake.url}/repos/acme/docs/pulls?state=all&per_page=1&page=2`, { headers: { authorization: `token ${TOKEN}` } });
    expect(((await second.json()) as Array<{ number: number }>).map((pull) => pull.number)).toEqual([1]);
    expect(second.headers.get('link')).toBeNull();
    expect((await call('GET', '/repos/acme/docs/pulls?state=opened')).status).toBe(422);
  });

  test('installation tokens: JWT checks, expiry', async () => {
    const seconds = Math.floor(now / 1000);
    const path = '/app/installations/7/access_tokens';
    expect((await call('POST', path, undefined, 'Bearer not.a.jwt')).status).toBe(401);
    expect((await call('POST', path, undefined, `Bearer ${jwt({ iss: '42', iat: seconds, exp: seconds + 3600 })}`)).json.message).toContain(
      'too far in the future',
    );
    expect((await call('POST', path, undefined, `Bearer ${jwt({ iss: '42', iat: seconds - 700, exp: seconds - 100 })}`)).status).toBe(401);
    expect((await call('POST', '/app/installations/8/access_tokens', undefined, `Bearer ${jwt({ iss: '42', iat: seconds, exp: seconds + 500 })}`)).status).toBe(
      404,
    );

    const issued = await call('POST', path, undefined, `Bearer ${jwt({ iss: '42', iat: seconds - 60, exp: seconds + 500 })}`);
    expect(issued).toMatchObject({ status: 201, json: { expires_at: '2026-01-01T01:00:00Z', repository_selection: 'all' } });
    const token = issued.json.token as string;
    expect(token).toMatch(/^ghs_/);
    expect((await call('GET', '/repos/acme/docs/pulls', undefined, `token ${token}`)).status).toBe(200);
    now += 3600_000;
    expect((await call('GET', '/repos/acme/docs/pulls', undefined, `token ${token}`)).status).toBe(401);
  });
});
