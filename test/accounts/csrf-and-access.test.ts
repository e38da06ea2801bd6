import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { Browser, MEMBER, signedIn } from '../helpers/browser.js';
import type { Project } from '../../src/projects/project.js';

describe.each(BACKENDS)('CSRF and access by role [%s]', (dialect) => {
  let t: TestApp;
  let project: Project;
  let adminKey: string;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    project = await createTestProject(t.services);
    adminKey = (await t.services.keys.create({ projectId: project.id })).key;
    // What a public route (like the local pull request JSON route) sees of the caller.
    t.app.get('/test/whoami', { config: { access: 'public' } }, async (request) => ({ user: request.user, principal: request.principal }));
  });
  afterEach(async () => t.close());

  test('a state-changing request with a session but without the right X-CSRF-Token is refused (403 csrf_failed)', async () => {
    await t.services.accounts.createUser({ email: 'admin@example.com', password: 'correct horse battery', role: 'admin' });
    const admin = new Browser(t.app);
    const beforeSignIn = (await admin.open()).json().csrfToken as string;
    expect((await admin.signIn('admin@example.com', 'correct horse battery')).statusCode).toBe(200);
    expect(admin.csrfToken).not.toBe(beforeSignIn);
    const create = (headers: Record<string, string>, csrf: boolean) =>
      admin.request({ method: 'POST', url: '/v1/users', payload: { ...MEMBER, role: 'member' }, headers, csrf });

    const missing = await create({}, false);
    expect(missing.statusCode).toBe(403);
    expect(missing.json()).toMatchObject({ code: 'csrf_failed', status: 403 });
    const wrong = await create({ 'x-csrf-token': 'A'.repeat(43) }, false);
    expect(wrong.json().code).toBe('csrf_failed');
    // The pre-sign-in token was rotated at sign-in: it no longer works either.
    const stale = await create({ 'x-csrf-token': beforeSignIn }, false);
    expect(stale.json().code).toBe('csrf_failed');
    expect(await t.services.accounts.listUsers()).toHaveLength(1);

    expect((await create({}, true)).statusCode).toBe(201);
    expect(await t.services.accounts.listUsers()).toHaveLength(2);
  });

  test('sign-in and setup need the token bound to the dw_csrf cookie', async () => {
    await t.services.accounts.createUser({ ...MEMBER, role: 'member' });
    const browser = new Browser(t.app);
    // No GET /v1/session first: no cookie, no token.
    const blind = await browser.request({ method: 'POST', url: '/v1/session', payload: MEMBER });
    expect(blind.statusCode).toBe(403);
    expect(blind.json().code).toBe('csrf_failed');
    await browser.open();
    const otherBrowsersToken = (await new Browser(t.app).open()).json().csrfToken as string;
    const mismatched = await browser.request({
      method: 'POST',
      url: '/v1/session',
      payload: MEMBER,
      headers: { 'x-csrf-token': otherBrowsersToken },
      csrf: false,
    });
    expect(mismatched.json().code).toBe('csrf_failed');
    expect((await browser.request({ method: 'POST', url: '/v1/session', payload: MEMBER })).statusCode).toBe(200);
  });

  test('before sign-in the token is an HMAC of the dw_csrf pre-session id: a planted cookie with a token of its own fails', async () => {
    await t.services.accounts.createUser({ ...MEMBER, role: 'member' });
    // What a sibling host could do under the old double-submit rule: plant dw_csrf=T and send T.
    const planted = 'P'.repeat(43);
    const signIn = (cookie: string, token: string) =>
      t.app.inject({ method: 'POST', url: '/v1/session', payload: MEMBER, headers: { cookie, 'x-csrf-token': token } });
    const forged = await signIn(`dw_csrf=${planted}`, planted);
    expect([forged.statusCode, forged.json().code]).toEqual([403, 'csrf_failed']);
    expect(forged.headers['set-cookie']).toBeUndefined();

    // The pair GET /v1/session hands out: the cookie is the id, the token is not the cookie.
    const browser = new Browser(t.app);
    const token = (await browser.open()).json().csrfToken as string;
    const id = browser.cookies.get('dw_csrf')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(token).not.toBe(id);
    expect((await signIn(`dw_csrf=${id}`, id)).json().code).toBe('csrf_failed');
    // The token follows from the id alone (nothing is stored): another browser with that cookie gets the same.
    expect((await new Browser(t.app).request({ url: '/v1/session', headers: { cookie: `dw_csrf=${id}` } })).json().csrfToken).toBe(token);
    expect((await signIn(`dw_csrf=${id}`, token)).statusCode).toBe(200);
  });

  test('Bearer requests need no CSRF token and are unaffected by cookies; the public beacon needs none either', async () => {
    const job = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${project.id}/job`,
      headers: { authorization: `Bearer ${adminKey}` },
      payload: { prompt: 'Fix typos' },
    });
    expect(job.statusCode).toBe(201);
    // A browser's cookies beside a key change nothing: the key decides.
    const member = await signedIn(t.app, t.services, 'member');
    const withCookies = await member.request({
      method: 'POST',
      url: `/v2/agent/${project.id}/job/${job.json().id}/archive`,
      headers: { authorization: `Bearer ${adminKey}` },
      csrf: false,
    });
    expect(withCookies.statusCode).toBe(200);

    await t.services.projects.update(project.id, { settings: { allowedOrigins: ['https://docs.example.com'] } });
    const beacon = await member.request({
      method: 'POST',
      url: `/v1/analytics/${project.id}/collect`,
      headers: { origin: 'https://docs.example.com', 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' },
      payload: JSON.stringify({ path: '/quickstart', referrer: '' }),
      csrf: false,
    });
    expect(beacon.statusCode).toBe(204);
    // Unknown routes still answer 404, not a CSRF refusal.
    expect((await t.app.inject({ method: 'POST', url: '/v1/nothing-here' })).statusCode).toBe(404);
  });

  test('a member runs jobs and reads analytics of any project; admin-only routes answer 403; no session answers 401', async () => {
    const member = await signedIn(t.app, t.services, 'member');
    const other = await createTestProject(t.services, { name: 'Other' });

    for (const id of [project.id, other.id]) {
      const created = await member.request({ method: 'POST', url: `/v2/agent/${id}/job`, payload: { prompt: 'Document the CLI' } });
      expect(created.statusCode, id).toBe(201);
      expect(created.headers.ratelimit).toMatch(/r=99/);
      expect((await member.request({ url: `/v2/agent/${id}/jobs` })).json().jobs).toHaveLength(1);
      expect((await member.request({ url: `/v1/analytics/${id}/visitors` })).statusCode).toBe(200);
      expect((await member.request({ url: `/v1/projects/${id}` })).json().id).toBe(id);
    }
    expect((await member.request({ url: '/v1/projects' })).json().projects).toHaveLength(2);
    const unknown = await member.request({ url: '/v2/agent/NoSuchProject000000000/jobs' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');

    const forbidden = [
      await member.request({ url: '/v1/users' }),
      await member.request({ method: 'POST', url: '/v1/users', payload: { email: 'x@example.com', password: 'long enough!', role: 'admin' } }),
      await member.request({ method: 'POST', url: '/v1/projects', payload: { name: 'New', repository: t.config.dataDir } }),
      await member.request({ method: 'PATCH', url: `/v1/projects/${project.id}`, payload: { name: 'Renamed' } }),
      await member.request({ method: 'DELETE', url: `/v1/projects/${project.id}`, payload: { confirmName: project.name } }),
      await member.request({ url: `/v1/projects/${project.id}/keys` }),
      await member.request({ method: 'POST', url: `/v1/projects/${project.id}/keys`, payload: { scope: 'admin', name: 'x' } }),
    ];
    for (const response of forbidden) expect([response.statusCode, response.json().code]).toEqual([403, 'forbidden']);
    expect((await t.services.projects.get(project.id)).name).toBe('Docs');

    // Keys do not open session routes; nothing at all gets 401.
    expect((await t.app.inject({ url: '/v1/projects', headers: { authorization: `Bearer ${adminKey}` } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/v1/users' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: `/v2/agent/${project.id}/jobs` })).json().code).toBe('unauthorized');
  });

  test('public routes see the signed-in user (request.user) and nobody else', async () => {
    const member = await signedIn(t.app, t.services, 'member');
    const seen = (await member.request({ url: '/test/whoami' })).json();
    expect(seen).toEqual({ user: { id: expect.any(String), email: MEMBER.email, role: 'member', mustChangePassword: false }, principal: null });
    expect((await t.app.inject({ url: '/test/whoami' })).json()).toEqual({ user: null, principal: null });
    expect((await t.app.inject({ url: '/test/whoami', headers: { cookie: 'dw_session=forged-or-expired' } })).json().user).toBeNull();
    await member.request({ method: 'DELETE', url: '/v1/session' });
    expect((await member.request({ url: '/test/whoami' })).json().user).toBeNull();
  });

  test("admins manage users; nobody deletes themselves; a deleted user's session stops at once", async () => {
    const admin = await signedIn(t.app, t.services, 'admin');
    t.clock.advance(1_000); // users are listed oldest first
    const created = await admin.request({ method: 'POST', url: '/v1/users', payload: { ...MEMBER } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ id: expect.any(String), email: MEMBER.email, role: 'member', createdAt: expect.any(String), mustChangePassword: false });
    const duplicate = await admin.request({ method: 'POST', url: '/v1/users', payload: { ...MEMBER, email: MEMBER.email.toUpperCase() } });
    expect([duplicate.statusCode, duplicate.json().code]).toEqual([409, 'email_taken']);
    const listed = (await admin.request({ url: '/v1/users' })).json().users;
    expect(listed.map((user: { email: string }) => user.email)).toEqual(['admin@example.com', MEMBER.email]);
    expect(JSON.stringify(listed)).not.toContain('argon2');

    const member = new Browser(t.app);
    expect((await member.signIn(MEMBER.email, MEMBER.password)).statusCode).toBe(200);
    const self = await admin.request({ method: 'DELETE', url: `/v1/users/${listed[0].id}` });
    expect([self.statusCode, self.json().code]).toEqual([409, 'cannot_delete_self']);
    expect((await admin.request({ method: 'DELETE', url: `/v1/users/${created.json().id}` })).statusCode).toBe(204);
    expect((await admin.request({ method: 'DELETE', url: `/v1/users/${created.json().id}` })).statusCode).toBe(404);
    expect((await member.request({ url: '/v1/projects' })).statusCode).toBe(401);
    expect((await member.open()).json().user).toBeNull();
  });
});
