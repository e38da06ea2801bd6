import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { openSecondInstance } from '../helpers/second-instance.js';
import { ADMIN, Browser, MEMBER, signedIn } from '../helpers/browser.js';
import type { Project } from '../../src/projects/project.js';

const NEW_PASSWORD = 'my own new passphrase';

describe.each(BACKENDS)('admin password resets and role changes [%s]', (dialect) => {
  let t: TestApp;
  let project: Project;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    project = await createTestProject(t.services);
    t.app.get('/test/whoami', { config: { access: 'public' } }, async (request) => ({ user: request.user }));
  });
  afterEach(async () => t.close());

  const memberId = async () => (await t.services.accounts.listUsers()).find((user) => user.email === MEMBER.email)!.id;
  const userOf = async (browser: Browser) => (await browser.open()).json().user as Record<string, unknown> | null;

  test("a reset gives a temporary password once, ends the user's sessions, and forces a new password before anything else", async () => {
    const admin = await signedIn(t.app, t.services, 'admin');
    const member = await signedIn(t.app, t.services, 'member');
    const id = await memberId();

    const reset = await admin.request({ method: 'POST', url: `/v1/users/${id}/password-reset` });
    expect(reset.statusCode).toBe(200);
    expect(reset.headers['cache-control']).toBe('no-store');
    const { temporaryPassword, user } = reset.json();
    expect(user).toMatchObject({ id, email: MEMBER.email, mustChangePassword: true });
    expect(temporaryPassword).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(JSON.stringify(await t.services.database.db.selectFrom('users').selectAll().execute())).not.toContain(temporaryPassword);
    expect(await userOf(member)).toBeNull();
    expect((await new Browser(t.app).signIn(MEMBER.email, MEMBER.password)).statusCode).toBe(401);

    const again = new Browser(t.app);
    const signIn = await again.signIn(MEMBER.email, temporaryPassword);
    expect(signIn.statusCode).toBe(200);
    expect(signIn.json().user).toMatchObject({ email: MEMBER.email, mustChangePassword: true });
    expect(await userOf(again)).toMatchObject({ mustChangePassword: true });
    for (const response of [
      await again.request({ url: '/v1/projects' }),
      await again.request({ url: `/v2/agent/${project.id}/jobs` }),
      await again.request({ method: 'POST', url: `/v2/agent/${project.id}/job`, payload: { prompt: 'Fix typos' } }),
    ]) {
      expect([response.statusCode, response.json().code]).toEqual([403, 'password_change_required']);
    }
    // A public route treats the browser as signed out until then.
    expect((await again.request({ url: '/test/whoami' })).json().user).toBeNull();

    expect(
      (await again.request({ method: 'POST', url: '/v1/session/password', payload: { currentPassword: temporaryPassword, newPassword: NEW_PASSWORD } }))
        .statusCode,
    ).toBe(204);
    expect(await userOf(again)).toMatchObject({ mustChangePassword: false });
    expect((await again.request({ url: `/v2/agent/${project.id}/jobs` })).statusCode).toBe(200);
    expect((await t.services.accounts.listUsers()).find((listed) => listed.id === id)!.mustChangePassword).toBe(false);
    expect((await new Browser(t.app).signIn(MEMBER.email, temporaryPassword)).statusCode).toBe(401);
  });

  test('a user who must change their password can still sign out, everywhere too', async () => {
    const admin = await signedIn(t.app, t.services, 'admin');
    await t.services.accounts.createUser({ ...MEMBER, role: 'member' });
    const { temporaryPassword } = (await admin.request({ method: 'POST', url: `/v1/users/${await memberId()}/password-reset` })).json();
    const first = new Browser(t.app);
    await first.signIn(MEMBER.email, temporaryPassword);
    const second = new Browser(t.app);
    await second.signIn(MEMBER.email, temporaryPassword);
    expect((await first.request({ method: 'DELETE', url: '/v1/session' })).statusCode).toBe(204);
    expect((await second.request({ method: 'DELETE', url: '/v1/session/everywhere' })).statusCode).toBe(204);
    expect(await userOf(second)).toBeNull();
  });

  test('only admins reset, never their own password, and an unknown user is 404', async () => {
    const admin = await signedIn(t.app, t.services, 'admin');
    const member = await signedIn(t.app, t.services, 'member');
    const adminId = (await admin.open()).json().user.id as string;
    const self = await admin.request({ method: 'POST', url: `/v1/users/${adminId}/password-reset` });
    expect([self.statusCode, self.json().code]).toEqual([409, 'cannot_reset_self']);
    const byMember = await member.request({ method: 'POST', url: `/v1/users/${adminId}/password-reset` });
    expect([byMember.statusCode, byMember.json().code]).toEqual([403, 'forbidden']);
    expect((await admin.request({ method: 'POST', url: '/v1/users/nobody/password-reset' })).statusCode).toBe(404);
    expect((await new Browser(t.app).signIn(ADMIN.email, ADMIN.password)).statusCode).toBe(200);
  });

  test("a role change holds at the user's next request; the only admin cannot be made a member", async () => {
    const admin = await signedIn(t.app, t.services, 'admin');
    const member = await signedIn(t.app, t.services, 'member');
    const id = await memberId();
    const adminId = (await admin.open()).json().user.id as string;
    expect((await member.request({ url: '/v1/users' })).statusCode).toBe(403);

    const last = await admin.request({ method: 'PATCH', url: `/v1/users/${adminId}`, payload: { role: 'member' } });
    expect([last.statusCode, last.json().code]).toEqual([409, 'last_admin']);
    const bad = await admin.request({ method: 'PATCH', url: `/v1/users/${id}`, payload: { role: 'owner' } });
    expect([bad.statusCode, bad.json().code]).toEqual([400, 'validation_failed']);
    expect((await member.request({ method: 'PATCH', url: `/v1/users/${id}`, payload: { role: 'admin' } })).json().code).toBe('forbidden');
    expect((await admin.request({ method: 'PATCH', url: '/v1/users/nobody', payload: { role: 'admin' } })).statusCode).toBe(404);

    const promoted = await admin.request({ method: 'PATCH', url: `/v1/users/${id}`, payload: { role: 'admin' } });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ id, role: 'admin' });
    expect(await userOf(member)).toMatchObject({ role: 'admin' });
    expect((await member.request({ url: '/v1/users' })).statusCode).toBe(200);

    // With two admins, one may step down; the other is then the last.
    expect((await member.request({ method: 'PATCH', url: `/v1/users/${adminId}`, payload: { role: 'member' } })).statusCode).toBe(200);
    expect((await admin.request({ url: '/v1/users' })).json().code).toBe('forbidden');
    expect((await member.request({ method: 'PATCH', url: `/v1/users/${id}`, payload: { role: 'member' } })).json().code).toBe('last_admin');
  });

  test('two admins demoting each other at once on two server instances: exactly one succeeds', async () => {
    const first = await signedIn(t.app, t.services, 'admin');
    await t.services.accounts.createUser({ ...MEMBER, role: 'admin' });
    const other = await openSecondInstance(t);
    try {
      const second = new Browser(other.app);
      await second.signIn(MEMBER.email, MEMBER.password);
      const firstId = (await first.open()).json().user.id as string;
      const secondId = (await second.open()).json().user.id as string;
      const answers = await Promise.all([
        first.request({ method: 'PATCH', url: `/v1/users/${secondId}`, payload: { role: 'member' } }),
        second.request({ method: 'PATCH', url: `/v1/users/${firstId}`, payload: { role: 'member' } }),
      ]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
      expect((await t.services.accounts.listUsers()).filter((user) => user.role === 'admin')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});
