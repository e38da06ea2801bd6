import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { openPostgresDatabase } from '../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { createServices, type Services } from '../../src/app/services.js';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { features } from '../../src/server/features.js';

describe.each(BACKENDS)('shared rate limit [%s]', (dialect) => {
  let t: TestApp;
  let second: { app: FastifyInstance; services: Services } | null = null;
  afterEach(async () => {
    if (second) {
      await second.app.close();
      await second.services.close();
      second = null;
    }
    await t.close();
  });

  test('150 concurrent creates and messages through two server instances: exactly 100 succeed', async () => {
    t = await createTestApp(dialect);
    const project = await createTestProject(t.services);
    const key = (await t.services.keys.create({ projectId: project.id })).key;
    // A second "process": its own connection pool and app on the same database.
    const database = dialect === 'postgres' ? openPostgresDatabase(t.testDatabase.location) : openSqliteDatabase(t.testDatabase.location);
    const services = await createServices({ config: t.config, database, clock: t.clock });
    second = { services, app: await buildApp({ services, logger: createLogger({ level: 'silent' }), features }) };

    const seed = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${project.id}/job`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"prompt":"seed"}',
    });
    expect(seed.statusCode).toBe(201);
    const jobId = seed.json().id;
    const apps = [t.app, second.app];
    const responses = await Promise.all(
      Array.from({ length: 150 }, (_, index) =>
        apps[index % 2]!.inject({
          method: 'POST',
          url: index % 3 === 0 ? `/v2/agent/${project.id}/job/${jobId}/message` : `/v2/agent/${project.id}/job`,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ prompt: `request ${index}` }),
        }),
      ),
    );
    const statuses = responses.map((response) => response.statusCode);
    // The seed used one unit of the budget.
    expect(statuses.filter((status) => status === 201 || status === 200)).toHaveLength(99);
    expect(statuses.filter((status) => status === 429)).toHaveLength(51);
    const rejected = responses.find((response) => response.statusCode === 429)!;
    expect(rejected.json().code).toBe('rate_limited');
    expect(Number(rejected.headers['retry-after'])).toBe(3600);
    expect(rejected.headers['ratelimit']).toBe('"agent";r=0;t=3600');
    expect(rejected.headers['ratelimit-policy']).toBe('"agent";q=100;w=3600');
    const hits = await t.services.database.db
      .selectFrom('rate_limit_hits')
      .select(({ fn }) => fn.countAll().as('count'))
      .executeTakeFirst();
    expect(Number(hits?.count)).toBe(100);

    // The window slides: all 100 were counted at the same instant, so an hour later all are free again.
    t.clock.advance(3_599_999);
    const tooEarly = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${project.id}/job`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"prompt":"early"}',
    });
    expect(tooEarly.statusCode).toBe(429);
    expect(tooEarly.headers['retry-after']).toBe('1');
    t.clock.advance(1);
    const later = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${project.id}/job`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"prompt":"later"}',
    });
    expect(later.statusCode).toBe(201);
    expect(later.headers['ratelimit']).toBe('"agent";r=99;t=3600');
  });

  test('failed authentication and validation never spend the budget', async () => {
    t = await createTestApp(dialect, { DOCWRIGHT_RATE_LIMIT: '2' });
    const project = await createTestProject(t.services);
    const key = (await t.services.keys.create({ projectId: project.id })).key;
    for (let index = 0; index < 5; index += 1) {
      await t.app.inject({
        method: 'POST',
        url: `/v2/agent/${project.id}/job`,
        headers: { authorization: 'Bearer dw_admin_bogus', 'content-type': 'application/json' },
        payload: '{"prompt":"x"}',
      });
      await t.app.inject({
        method: 'POST',
        url: `/v2/agent/${project.id}/job`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: '{"prompt":""}',
      });
    }
    const ok = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${project.id}/job`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"prompt":"x"}',
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.headers['ratelimit']).toBe('"agent";r=1;t=3600');
    expect(ok.headers['ratelimit-policy']).toBe('"agent";q=2;w=3600');
  });
});
