import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { ADMIN, Browser, MEMBER, signedIn } from '../helpers/browser.js';

const NEW_PASSWORD = 'a brand new passphrase';

describe.each(BACKENDS)('own password and sessions [%s]', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => t.close());

  const change = (browser: Browser, currentPassword: string, newPassword: string, remoteAddress?: string) =>
    browser.request({ method: 'POST', url: '/v1/session/password', payload: { currentPassword, newPassword }, ...(remoteAddress ? { remoteAddress } : {}) });
  const userOf = async (browser: Browser) => (await browser.open()).json().user as { email: string } | null;

  test('changing the password needs the current one, ends the other sessions and keeps this one', async () => {
    const here = await signedIn(t.app, t.services, 'member');
    const elsewhere = new Browser(t.app);
    expect((await elsewhere.signIn(MEMBER.email, MEMBER.password)).statusCode).toBe(200);
    const someoneElse = await signedIn(t.app, t.services, 'admin');

    const wrong = await change(here, 'not my password', NEW_PASSWORD);
    expect([wrong.statusCode, wrong.json().code]).toEqual([403, 'invalid_current_password']);
    const same = await change(here, MEMBER.password, MEMBER.password);
    expect([same.statusCode, same.json().code]).toEqual([400, 'password_unchanged']);
    const short = await change(here, MEMBER.password, 'short');
    expect(short.statusCode).toBe(400);
    expect(short.json().errors).toEqual([expect.objectContaining({ path: 'newPassword' })]);
    expect(await userOf(elsewhere)).not.toBeNull();

    const noCsrf = await here.request({
      method: 'POST',
      url: '/v1/session/password',
      payload: { currentPassword: MEMBER.password, newPassword: NEW_PASSWORD },
      csrf: false,
    });
    expect(noCsrf.json().code).toBe('csrf_failed');

    const changed = await change(here, MEMBER.password, NEW_PASSWORD);
    expect(changed.statusCode).toBe(204);
    expect(await userOf(here)).toMatchObject({ email: MEMBER.email });
    expect((await here.request({ url: '/v1/projects' })).statusCode).toBe(200);
    expect(await userOf(elsewhere)).toBeNull();
    expect(await userOf(someoneElse)).toMatchObject({ email: ADMIN.email });

    expect((await new Browser(t.app).signIn(MEMBER.email, MEMBER.password)).statusCode).toBe(401);
    expect((await new Browser(t.app).signIn(MEMBER.email, NEW_PASSWORD)).statusCode).toBe(200);
    // No session: 401, nothing changed.
    const anonymous = new Browser(t.app);
    await anonymous.open();
    expect((await change(anonymous, NEW_PASSWORD, 'yet another passphrase')).json().code).toBe('sign_in_required');
  });

  test('guessing the current password is limited like sign-in: per address and per account, 429 with Retry-After', async () => {
    const member = await signedIn(t.app, t.services, 'member');
    for (let index = 0; index < 10; index += 1) expect((await change(member, `guess number ${index}`, NEW_PASSWORD, '203.0.113.7')).statusCode).toBe(403);
    const limited = await change(member, MEMBER.password, NEW_PASSWORD, '203.0.113.7');
    expect([limited.statusCode, limited.json().code]).toEqual([429, 'rate_limited']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The account's budget is the sign-in budget: another address gets no fresh guesses either.
    expect((await change(member, MEMBER.password, NEW_PASSWORD, '198.51.100.1')).statusCode).toBe(429);
    expect((await new Browser(t.app).signIn(MEMBER.email, MEMBER.password, '198.51.100.2')).statusCode).toBe(429);
    t.clock.advance(15 * 60_000 + 1);
    expect((await change(member, MEMBER.password, NEW_PASSWORD, '198.51.100.1')).statusCode).toBe(204);
  });

  test('sign out everywhere ends every session of the user, this one included, and no one else’s', async () => {
    const here = await signedIn(t.app, t.services, 'member');
    const elsewhere = new Browser(t.app);
    await elsewhere.signIn(MEMBER.email, MEMBER.password);
    const admin = await signedIn(t.app, t.services, 'admin');

    const out = await here.request({ method: 'DELETE', url: '/v1/session/everywhere' });
    expect(out.statusCode).toBe(204);
    expect(here.cookies.has('dw_session')).toBe(false);
    expect(await userOf(here)).toBeNull();
    expect(await userOf(elsewhere)).toBeNull();
    expect((await elsewhere.request({ url: '/v1/projects' })).statusCode).toBe(401);
    expect(await userOf(admin)).toMatchObject({ email: ADMIN.email });
    expect((await here.request({ method: 'DELETE', url: '/v1/session/everywhere' })).json().code).toBe('sign_in_required');
  });
});
