import { afterEach, describe, expect, test } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { startApiProcess } from '../helpers/api-process.js';
import type { DocwrightProcess } from '../helpers/docwright-process.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';

/** Issue 12, test 6: the agent rate limit is one budget however many API processes serve the project. */
describe.each(BACKENDS)('the agent rate limit across two API processes [%s]', (dialect) => {
  let t: TestApp;
  let servers: DocwrightProcess[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    servers = [];
    await t.close();
  });

  test('150 concurrent creates through two `docwright serve` processes: exactly 100 succeed, each remaining count once; 50 get 429 with the headers', async () => {
    t = await createTestApp(dialect, {}, { clock: systemClock });
    const project = await createTestProject(t.services);
    const key = (await t.services.keys.create({ projectId: project.id })).key;
    servers = await Promise.all([0, 1].map(() => startApiProcess(t)));

    const startedAt = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 150 }, async (_, index) => {
        const server = servers[index % 2]!;
        const response = await fetch(`${server.url!}/v2/agent/${project.id}/job`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: `request ${index}` }),
        });
        return { server: index % 2, status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
      }),
    );
    const elapsedSeconds = Math.ceil((Date.now() - startedAt) / 1000);
    const reset = (header: string | null): { remaining: number; seconds: number } => {
      const match = /^"agent";r=(\d+);t=(\d+)$/.exec(header ?? '');
      expect(match, `RateLimit: ${header}`).not.toBeNull();
      return { remaining: Number(match![1]), seconds: Number(match![2]) };
    };

    const accepted = responses.filter((response) => response.status === 201);
    const refused = responses.filter((response) => response.status === 429);
    expect(accepted).toHaveLength(100);
    expect(refused).toHaveLength(50);
    // Both processes accepted some: the budget really was shared, not split.
    expect(new Set(accepted.map((response) => response.server)).size).toBe(2);
    // Each charge saw the one before it, whichever process made it.
    expect(accepted.map((response) => reset(response.headers.get('ratelimit')).remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, index) => index),
    );
    for (const response of [...accepted, ...refused]) {
      expect(response.headers.get('ratelimit-policy')).toBe('"agent";q=100;w=3600');
      const { seconds } = reset(response.headers.get('ratelimit'));
      expect(seconds).toBeGreaterThanOrEqual(3_600 - elapsedSeconds - 1);
      expect(seconds).toBeLessThanOrEqual(3_600);
    }
    for (const response of refused) {
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 429, code: 'rate_limited' });
      const { remaining, seconds } = reset(response.headers.get('ratelimit'));
      expect(remaining).toBe(0);
      expect(response.headers.get('retry-after')).toBe(String(seconds));
    }
    const count = async (table: 'jobs' | 'rate_limit_hits') =>
      Number(
        (
          await t.services.database.db
            .selectFrom(table)
            .select(({ fn }) => fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('jobs')).toBe(100);
    expect(await count('rate_limit_hits')).toBe(100);
  });
});
