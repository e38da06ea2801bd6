import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app.js';
import { openSecondInstance } from '../helpers/second-instance.js';
import { ADMIN, Browser } from '../helpers/browser.js';
import { deriveSetupToken } from '../../src/accounts/setup-token.js';
import { SESSION_IDLE_MS, SESSION_MAX_MS } from '../../src/accounts/session-store.js';

const SETUP_TOKEN = deriveSetupToken(TEST_SECRET);
const HOUR = 3_600_000;

describe.each(BACKENDS)('setup and sign-in [%s]', (dialect) => {
  let t: TestApp;
  afterEach(async () => t.close());

  const setup = (browser: Browser, setupToken = SETUP_TOKEN, who = ADMIN) =>
    browser.request({ method: 'POST', url: '/v1/session/setup', payload: { setupToken, ...who } });

  test('first run: setupRequired until the first admin is created with the setup token, which then stops working', async () => {
    t = await createTestApp(dialect);
    const browser = new Browser(t.app);
    const first = await browser.open();
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ setupRequired: true, user: null, csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(first.headers['cache-control']).toBe('no-store');

    const wrong = await setup(browser, deriveSetupToken('another-secret-another-secret-another-secret'));
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('invalid_setup_token');
    expect(await t.services.accounts.listUsers()).toEqual([]);

    const created = await setup(browser);
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body.user).toEqual({ id: expect.any(String), email: ADMIN.email, role: 'admin', mustChangePassword: false });
    expect(body.csrfToken).not.toBe(first.json().csrfToken);

    const state = (await browser.open()).json();
    expect(state).toEqual({ setupRequired: false, user: body.user, csrfToken: body.csrfToken });

    const late = new Browser(t.app);
    await late.open();
    const refused = await setup(late, SETUP_TOKEN, { email: 'second@example.com', password: 'another password' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('setup_completed');
    expect((await t.services.accounts.listUsers()).map((user) => user.email)).toEqual([ADMIN.email]);
  });

  test('concurrent setups on two server instances create exactly one admin', async () => {
    t = await createTestApp(dialect);
    const other = await openSecondInstance(t);
    try {
      const browsers = Array.from({ length: 8 }, (_, index) => new Browser(index % 2 === 0 ? t.app : other.app));
      for (const browser of browsers) await browser.open();
      const answers = await Promise.all(
        browsers.map((browser, index) => setup(browser, SETUP_TOKEN, { email: `admin${index}@example.com`, password: 'a long enough password' })),
      );
      const statuses = answers.map((answer) => answer.statusCode).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      const users = await t.services.accounts.listUsers();
      expect(users).toHaveLength(1);
      expect(users[0]!.role).toBe('admin');
    } finally {
      await other.close();
    }
  });

  test('setup and user creation validate their input (400, never 5xx)', async () => {
    t = await createTestApp(dialect);
    const browser = new Browser(t.app);
    await browser.open();
    const short = await setup(browser, SETUP_TOKEN, { email: ADMIN.email, password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors).toEqual([expect.objectContaining({ path: 'password' })]);
    const notEmail = await setup(browser, SETUP_TOKEN, { email: 'not an email', password: ADMIN.password });
    expect(notEmail.statusCode).toBe(400);
    expect(notEmail.json().errors[0].path).toBe('email');
    const tooLong = await setup(browser, SETUP_TOKEN, { email: ADMIN.email, password: 'x'.repeat(1_001) });
    expect(tooLong.statusCode).toBe(400);
  });

  test('sign in and out; wrong password and unknown email get the identical 401', async () => {
    t = await createTestApp(dialect);
    await t.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    const browser = new Browser(t.app);
    await browser.open();

    const bodies = new Set<string>();
    for (const attempt of [
      { email: ADMIN.email, password: 'wrong password!' },
      { email: 'nobody@example.com', password: ADMIN.password },
    ]) {
      const response = await browser.request({ method: 'POST', url: '/v1/session', payload: attempt });
      expect(response.statusCode).toBe(401);
      expect(response.headers['set-cookie']).toBeUndefined();
      const { requestId, ...body } = response.json();
      expect(requestId).toEqual(expect.any(String));
      expect(body).toMatchObject({ code: 'invalid_credentials', detail: 'Wrong email or password.' });
      bodies.add(JSON.stringify(body));
    }
    expect(bodies.size).toBe(1);

    // The email is matched whatever its capitalisation.
    const signedIn = await browser.signIn(ADMIN.email.toUpperCase(), ADMIN.password);
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().user).toMatchObject({ email: ADMIN.email, role: 'admin' });
    expect(browser.cookies.has('dw_session')).toBe(true);
    expect((await browser.open()).json().user).toMatchObject({ email: ADMIN.email });

    const cookie = browser.cookies.get('dw_session')!;
    const out = await browser.request({ method: 'DELETE', url: '/v1/session' });
    expect(out.statusCode).toBe(204);
    expect(browser.cookies.has('dw_session')).toBe(false);
    // The old cookie is dead in the store, not only forgotten by the browser.
    const replayed = await t.app.inject({ method: 'GET', url: '/v1/session', headers: { cookie: `dw_session=${cookie}` } });
    expect(replayed.json().user).toBeNull();
  });

  test('only the SHA-256 of the session id and an argon2id hash of the password are stored', async () => {
    t = await createTestApp(dialect);
    await t.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    const browser = new Browser(t.app);
    await browser.signIn(ADMIN.email, ADMIN.password);
    const secret = browser.cookies.get('dw_session')!;
    const dump = JSON.stringify([
      await t.services.database.db.selectFrom('sessions').selectAll().execute(),
      await t.services.database.db.selectFrom('users').selectAll().execute(),
    ]);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(ADMIN.password);
    expect(dump).toContain('$argon2id$');
  });

  test('failed sign-ins are limited per address and per email (429 with Retry-After); the window passes', async () => {
    t = await createTestApp(dialect);
    await t.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    const browser = new Browser(t.app);
    await browser.open();
    const attempt = (email: string, password: string, remoteAddress: string) =>
      browser.request({ method: 'POST', url: '/v1/session', payload: { email, password }, remoteAddress });

    // Per address: ten wrong guesses at ten different emails from one address.
    for (let index = 0; index < 10; index += 1) expect((await attempt(`user${index}@example.com`, 'wrong password', '203.0.113.7')).statusCode).toBe(401);
    const limited = await attempt(ADMIN.email, ADMIN.password, '203.0.113.7');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(900);
    // Another address is not affected, and a right password is not counted.
    expect((await attempt(ADMIN.email, ADMIN.password, '198.51.100.1')).statusCode).toBe(200);

    // Per email: ten wrong passwords from ten addresses lock that email everywhere.
    for (let index = 0; index < 10; index += 1) expect((await attempt(ADMIN.email, 'wrong password', `192.0.2.${index + 1}`)).statusCode).toBe(401);
    expect((await attempt(ADMIN.email, ADMIN.password, '192.0.2.200')).statusCode).toBe(429);

    t.clock.advance(15 * 60_000 + 1);
    expect((await attempt(ADMIN.email, ADMIN.password, '203.0.113.7')).statusCode).toBe(200);
  });

  test('cookies are HttpOnly, SameSite=Lax, Path=/; over https Secure with __Host- names, the bare names unread', async () => {
    t = await createTestApp(dialect, { DOCWRIGHT_TRUST_PROXY: '127.0.0.1' });
    await t.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    const attributes = (header: string | string[] | undefined, name: string) => {
      const line = [header ?? []].flat().find((value) => value.startsWith(`${name}=`));
      expect(line, name).toBeDefined();
      return line!
        .split(';')
        .map((part) => part.trim())
        .slice(1);
    };

    const plain = new Browser(t.app);
    const opened = await plain.open();
    const csrf = attributes(opened.headers['set-cookie'], 'dw_csrf');
    expect(csrf).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/']));
    expect(csrf).not.toContain('Secure');
    const signedIn = await plain.signIn(ADMIN.email, ADMIN.password);
    const session = attributes(signedIn.headers['set-cookie'], 'dw_session');
    expect(session).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', `Max-Age=${SESSION_MAX_MS / 1000}`]));
    expect(session).not.toContain('Secure');

    // Behind the trusted proxy, which terminated https: __Host- names (Secure, Path=/, no
    // Domain), which no sibling host can set.
    const secure = new Browser(t.app, { headers: { 'x-forwarded-proto': 'https' } });
    const secureCsrf = attributes((await secure.open()).headers['set-cookie'], '__Host-dw_csrf');
    expect(secureCsrf).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/']));
    expect(secureCsrf.some((part) => part.toLowerCase().startsWith('domain='))).toBe(false);
    const secureSignIn = await secure.signIn(ADMIN.email, ADMIN.password);
    expect(secureSignIn.statusCode).toBe(200);
    const secureSession = attributes(secureSignIn.headers['set-cookie'], '__Host-dw_session');
    expect(secureSession).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/']));
    expect(secureSession.some((part) => part.toLowerCase().startsWith('domain='))).toBe(false);
    expect([...secure.cookies.keys()].sort()).toEqual(['__Host-dw_csrf', '__Host-dw_session']);
    expect((await secure.open()).json().user).toMatchObject({ email: ADMIN.email });
    // Over https an unprefixed session cookie (what a sibling host could plant) is not read.
    const planted = await t.app.inject({
      url: '/v1/session',
      headers: { 'x-forwarded-proto': 'https', cookie: `dw_session=${secure.cookies.get('__Host-dw_session')}` },
    });
    expect(planted.json().user).toBeNull();

    // An untrusted peer cannot claim https.
    const spoofed = new Browser(t.app, { headers: { 'x-forwarded-proto': 'https' }, remoteAddress: '203.0.113.9' });
    expect(attributes((await spoofed.open()).headers['set-cookie'], 'dw_csrf')).not.toContain('Secure');
  });

  test('sessions end 7 days after the last use, and 30 days after sign-in at the latest', async () => {
    t = await createTestApp(dialect);
    await t.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    const idle = new Browser(t.app);
    await idle.signIn(ADMIN.email, ADMIN.password);
    const active = new Browser(t.app);
    await active.signIn(ADMIN.email, ADMIN.password);
    const user = async (browser: Browser) => (await browser.open()).json().user;

    t.clock.advance(SESSION_IDLE_MS - HOUR);
    expect(await user(active)).not.toBeNull();
    t.clock.advance(2 * HOUR);
    expect(await user(idle)).toBeNull();
    // Used a day before the idle limit, the other session lives on…
    expect(await user(active)).not.toBeNull();
    const signInAt = Date.UTC(2026, 5, 1, 12);
    while (t.clock.now() + 6 * 24 * HOUR < signInAt + SESSION_MAX_MS) {
      t.clock.advance(6 * 24 * HOUR);
      expect(await user(active), `${(t.clock.now() - signInAt) / HOUR} hours in`).not.toBeNull();
    }
    // …until 30 days after sign-in, however busy.
    t.clock.set(signInAt + SESSION_MAX_MS - 60_000);
    expect(await user(active)).not.toBeNull();
    t.clock.set(signInAt + SESSION_MAX_MS);
    expect(await user(active)).toBeNull();
  });
});
