import { Writable } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { features } from '../../src/server/features.js';
import { ADMIN, Browser } from '../helpers/browser.js';

let t: TestApp;
afterEach(async () => t.close());

test('no password, session secret or CSRF token reaches the log, even at trace level', async () => {
  t = await createTestApp('sqlite');
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  const logger = createLogger({ level: 'trace', destination });
  const app = await buildApp({ services: t.services, logger, features });
  try {
    await t.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    const browser = new Browser(app);
    await browser.request({ method: 'POST', url: '/v1/session', payload: ADMIN, csrf: false });
    await browser.signIn(ADMIN.email, 'a wrong password here');
    expect((await browser.signIn(ADMIN.email, ADMIN.password)).statusCode).toBe(200);
    await browser.request({ method: 'POST', url: '/v1/users', payload: { email: 'new@example.com', password: 'brand new password' } });
    logger.info({ password: 'p1-secret', setupToken: 's1-secret', body: { csrfToken: 'c1-secret', forgeToken: 'f1-secret' } }, 'structured');

    const log = lines.join('');
    expect(log).toContain('"msg":"structured"');
    for (const secret of [
      ADMIN.password,
      'brand new password',
      browser.cookies.get('dw_session')!,
      browser.csrfToken!,
      'p1-secret',
      's1-secret',
      'c1-secret',
      'f1-secret',
    ]) {
      expect(log).not.toContain(secret);
    }
  } finally {
    await app.close();
  }
});
