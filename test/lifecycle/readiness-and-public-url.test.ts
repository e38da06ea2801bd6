import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { backoffDelayMs } from '../../src/core/backoff.js';
import { derivePublicUrl } from '../../src/config/public-url.js';
import { createLogger } from '../../src/app/logger.js';
import { startServer } from '../../src/server/start-server.js';
import { createTestApp, TEST_SECRET, testConfig, type TestApp } from '../helpers/test-app.js';
import { runCli } from '../helpers/run-cli.js';
import { openTestDatabase } from '../helpers/test-database.js';

describe('/readyz and /healthz while draining', () => {
  let t: TestApp;
  afterEach(async () => t.close());

  test('/readyz turns 503 shutting_down once draining starts; /healthz stays 200', async () => {
    t = await createTestApp('sqlite');
    const before = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ status: 'ready', database: 'sqlite' });
    t.services.readiness.startDraining();
    const during = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(during.statusCode).toBe(503);
    expect(during.headers['content-type']).toContain('application/problem+json');
    expect(during.json()).toMatchObject({ status: 503, code: 'shutting_down', detail: 'This process is shutting down; send requests to another one.' });
    const alive = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(alive.statusCode).toBe(200);
    expect(alive.json()).toEqual({ status: 'ok' });
  });
});

test('DOCWRIGHT_SHUTDOWN_DELAY_SECONDS: a stopping server keeps answering (unready) that long before its listener closes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'docwright-delay-'));
  try {
    const config = testConfig(dataDir, { PORT: '0', DOCWRIGHT_SHUTDOWN_DELAY_SECONDS: '1' });
    const server = await startServer({ config, logger: createLogger({ level: 'silent' }), worker: false });
    const startedAt = Date.now();
    const stopped = server.stop().then(() => Date.now() - startedAt);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await stopped).toBeGreaterThanOrEqual(1_000);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('DOCWRIGHT_PUBLIC_URL', () => {
  test('`docwright worker` refuses to start without it, naming the setting (exit 2)', async () => {
    const database = await openTestDatabase('sqlite');
    try {
      const result = await runCli(['worker'], { DOCWRIGHT_DATA_DIR: database.dataDir, DOCWRIGHT_SECRET: TEST_SECRET }, { timeoutMs: 30_000 });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('DOCWRIGHT_PUBLIC_URL: must be set for `docwright worker`');
      expect(result.stdout).not.toContain('Docwright worker started');
    } finally {
      await database.close();
    }
  });

  test('a server derives it from where it listens: a wildcard address is localhost, IPv6 is bracketed', () => {
    expect(derivePublicUrl('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(derivePublicUrl('0.0.0.0', 8080)).toBe('http://localhost:8080');
    expect(derivePublicUrl('::', 8080)).toBe('http://localhost:8080');
    expect(derivePublicUrl('::1', 3000)).toBe('http://[::1]:3000');
  });
});

test('reconnect backoff: doubles from the base, capped, with half of each step random', () => {
  const options = { baseMs: 1_000, capMs: 30_000 };
  expect([1, 2, 3, 6, 50].map((attempt) => backoffDelayMs(attempt, { ...options, random: () => 0 }))).toEqual([500, 1_000, 2_000, 15_000, 15_000]);
  expect([1, 2, 3, 6, 50].map((attempt) => backoffDelayMs(attempt, { ...options, random: () => 0.999_999 }))).toEqual([1_000, 2_000, 4_000, 30_000, 30_000]);
});
