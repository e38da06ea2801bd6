import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { createServices, type Services } from '../../src/app/services.js';
import { systemClock } from '../../src/core/clock.js';
import { DEFAULT_DASHBOARD_DIR, dashboardFeature } from '../../src/dashboard/register-dashboard.js';
import { features } from '../../src/server/features.js';
import { openTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { testConfig } from '../helpers/test-app.js';

interface Served {
  app: FastifyInstance;
  services: Services;
  database: TestDatabase;
}

async function serve(feature: Parameters<typeof buildApp>[0]['features']): Promise<Served> {
  const database = await openTestDatabase('sqlite');
  const services = await createServices({ config: testConfig(database.dataDir), database: database.database, clock: systemClock });
  const app = await buildApp({ services, logger: createLogger({ level: 'silent' }), features: feature });
  return { app, services, database };
}

async function close(served: Served): Promise<void> {
  await served.app.close();
  await served.services.notifier.close();
  await served.database.close();
}

describe('dashboard serving (the real features, the built web/dist)', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(features);
  });
  afterAll(() => close(served));

  it.each([
    '/',
    '/setup',
    '/signin',
    '/users',
    '/projects',
    '/projects/p1/jobs',
    '/projects/p1/jobs/j1',
    '/projects/p1/analytics?range=7d',
    '/projects/p1/keys',
    '/projects/p1/settings',
  ])('GET %s answers the app shell with a strict CSP', async (url) => {
    const response = await served.app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<div id="app"></div>');
    expect(response.body).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-cache');
  });

  it('a pull request page (its URL carries the share token) leaks no referrer and is neither cached nor indexed', async () => {
    const response = await served.app.inject({ method: 'GET', url: '/projects/p1/pulls/3?token=secret-share-token' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<div id="app"></div>');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(String(response.headers['content-security-policy'])).toContain("script-src 'self'");
    // Other pages keep same-origin referrers (the API sees where a call came from).
    const jobs = await served.app.inject({ method: 'GET', url: '/projects/p1/jobs' });
    expect(jobs.headers['referrer-policy']).toBe('same-origin');
  });

  it.each(['/v1/nope', '/v2/agent/p1/nope', '/docs/nope.json', '/openapi.json/x', '/healthz/x', '/nope', '/assets/missing-abc123.js'])(
    'GET %s stays a JSON problem, never the app',
    async (url) => {
      const response = await served.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ status: 404, code: 'not_found' });
    },
  );

  it('serves hashed assets immutable and pre-compressed', async () => {
    const page = await served.app.inject({ method: 'GET', url: '/' });
    const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(page.body)![1]!;
    const plain = await served.app.inject({ method: 'GET', url: script });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toContain('javascript');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const brotli = await served.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': 'br, gzip' } });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers.vary).toContain('Accept-Encoding');
    expect(Number(brotli.headers['content-length'])).toBeLessThan(Number(plain.headers['content-length']) / 2);
  });

  it('keeps the first route under 200 kB of gzipped JavaScript', async () => {
    const page = await served.app.inject({ method: 'GET', url: '/' });
    const scripts = [...page.body.matchAll(/(?:src|href)="(\/assets\/[\w-]+\.js)"/g)].map((match) => match[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    let total = 0;
    for (const script of scripts) {
      const response = await served.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': 'gzip' } });
      expect(response.headers['content-encoding']).toBe('gzip');
      total += response.rawPayload.length;
    }
    expect(total).toBeLessThan(200 * 1024);
  });
});

describe('dashboard serving without a build', () => {
  let served: Served;
  let directory: string;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'docwright-no-dashboard-'));
    served = await serve([dashboardFeature({ directory: join(directory, 'dist') })]);
  });
  afterAll(async () => {
    await close(served);
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers / with a 503 page naming the build command, and the API still works', async () => {
    const response = await served.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('npm run build:dashboard');
    const health = await served.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
  });

  it('serves the dashboard as soon as it is built, without a restart', async () => {
    cpSync(DEFAULT_DASHBOARD_DIR, join(directory, 'dist'), { recursive: true });
    const response = await served.app.inject({ method: 'GET', url: '/signin' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<div id="app"></div>');
  });
});
