import { Writable } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { createTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app.js';
import { createLogger } from '../../src/app/logger.js';
import { announceSetup } from '../../src/accounts/setup-announcement.js';
import { deriveSetupToken } from '../../src/accounts/setup-token.js';

let t: TestApp;
afterEach(async () => t.close());

function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

test('the setup token is logged at start-up while no user exists, and only then; every process derives the same one', async () => {
  t = await createTestApp('sqlite');
  const token = deriveSetupToken(TEST_SECRET);
  expect(token).toMatch(/^[0-9a-f]{48}$/);
  expect(deriveSetupToken(TEST_SECRET)).toBe(token);
  expect(deriveSetupToken(`${TEST_SECRET}x`)).not.toBe(token);

  const before = capturingLogger();
  await announceSetup(t.services, before.logger);
  expect(before.lines).toHaveLength(1);
  expect(JSON.parse(before.lines[0]!)).toMatchObject({ level: 40, msg: expect.stringContaining(`setup token ${token}`) });

  await t.services.accounts.createUser({ email: 'a@example.com', password: 'long enough password', role: 'admin' });
  const after = capturingLogger();
  await announceSetup(t.services, after.logger);
  expect(after.lines).toEqual([]);
});
