import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { createServices, type Services } from '../../src/app/services.js';
import { openPostgresDatabase } from '../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { features } from '../../src/server/features.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createAnalyticsKit, DAY, type AnalyticsKit } from '../helpers/analytics-kit.js';

const SITE = 'https://docs.example.com';
/** A real browser's user agent with a varied build number: human, and a new visitor per `index`. */
const browser = (index: number) =>
  `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.${index}.0 Safari/537.36`;

describe.each(ANALYTICS_BACKENDS)('beacon cap on new visitors per address [%s]', (dialect) => {
  let kit: AnalyticsKit;
  const extra: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of extra.splice(0).reverse()) await close();
    await kit.close();
  });

  async function setUp(environment: Record<string, string> = {}) {
    kit = await createAnalyticsKit(dialect, environment);
    await kit.t.services.projects.update(kit.projectId, { settings: { allowedOrigins: [SITE] } });
  }

  const beacon = (app: FastifyInstance, userAgent: string, ip = '203.0.113.7', path = '/docs/start') =>
    app.inject({
      method: 'POST',
      url: `/v1/analytics/${kit.projectId}/collect`,
      headers: { origin: SITE, 'content-type': 'text/plain;charset=UTF-8', 'user-agent': userAgent },
      payload: JSON.stringify({ path }),
      remoteAddress: ip,
    });
  const humans = async () => (await kit.get('visitors')).json<{ totals: { human: number } }>().totals.human;
  const hits = async () =>
    (await kit.get('traffic')).json<{ classes: Array<{ class: string; hits: number }> }>().classes.find((row) => row.class === 'human')!.hits;

  /** A second app, as another process would run it: its own connection, services and memory, the same database and secret. */
  async function secondInstance(): Promise<FastifyInstance> {
    const location = kit.t.testDatabase.location;
    const database = dialect === 'postgres' ? openPostgresDatabase(location) : openSqliteDatabase(location);
    const services: Services = await createServices({ config: kit.t.config, database, clock: kit.t.clock });
    const app = await buildApp({ services, logger: createLogger({ level: 'silent' }), features });
    extra.push(async () => {
      await app.close();
      await services.close();
    });
    return app;
  }

  test('one address varying its User-Agent adds at most 20 visitors a day; the rest answer 204 and are not recorded', async () => {
    await setUp();
    for (let index = 0; index < 60; index++) expect((await beacon(kit.t.app, browser(index))).statusCode).toBe(204);
    expect(await humans()).toBe(20);
    expect(await hits()).toBe(20);
    // Visitors already admitted keep counting; a refused one stays refused.
    expect((await beacon(kit.t.app, browser(3), '203.0.113.7', '/docs/next')).statusCode).toBe(204);
    expect((await beacon(kit.t.app, browser(45), '203.0.113.7', '/docs/next')).statusCode).toBe(204);
    expect(await hits()).toBe(21);
    // Other addresses are not affected.
    expect((await beacon(kit.t.app, browser(45), '198.51.100.4')).statusCode).toBe(204);
    expect(await humans()).toBe(21);
  });

  test('the next UTC day brings a new allowance, and rows older than yesterday are deleted', async () => {
    await setUp();
    for (let index = 0; index < 25; index++) await beacon(kit.t.app, browser(index));
    const rows = () => kit.t.services.database.db.selectFrom('analytics_beacon_senders').select(['day', 'identities']).orderBy('day').execute();
    const today = Math.floor(kit.t.clock.now() / DAY);
    expect(await rows()).toEqual([{ day: today, identities: 20 }]);
    kit.t.clock.advance(DAY);
    for (let index = 100; index < 125; index++) await beacon(kit.t.app, browser(index));
    expect(await humans()).toBe(40);
    kit.t.clock.advance(DAY);
    await beacon(kit.t.app, browser(200));
    // Each turn of the day deletes in the background; the next turn's delete runs after it.
    kit.t.clock.advance(DAY);
    await beacon(kit.t.app, browser(300));
    const deadline = Date.now() + 10_000;
    let days = (await rows()).map((row) => row.day);
    while (days.length > 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      days = (await rows()).map((row) => row.day);
    }
    expect(days).toEqual([today + 2, today + 3]);
  });

  test('the cap holds across two app instances sharing one database', async () => {
    await setUp();
    const other = await secondInstance();
    // Interleaved, as a load balancer would spread them: 30 new visitors from one address.
    for (let index = 0; index < 30; index++) expect((await beacon(index % 2 === 0 ? kit.t.app : other, browser(index))).statusCode).toBe(204);
    expect(await humans()).toBe(20);
    // A visitor admitted through one instance counts through the other; a refused one is refused by both.
    const before = await hits();
    await beacon(other, browser(0), '203.0.113.7', '/docs/other');
    await beacon(kit.t.app, browser(1), '203.0.113.7', '/docs/other');
    await beacon(kit.t.app, browser(29), '203.0.113.7', '/docs/other');
    await beacon(other, browser(28), '203.0.113.7', '/docs/other');
    expect(await hits()).toBe(before + 2);
  });

  test('concurrent new visitors through two instances never exceed the cap', async () => {
    await setUp();
    const other = await secondInstance();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => beacon(index % 2 === 0 ? kit.t.app : other, browser(index))));
    expect(answers.every((answer) => answer.statusCode === 204)).toBe(true);
    expect(await humans()).toBe(20);
  });

  test('DOCWRIGHT_BEACON_VISITORS_PER_ADDRESS sets the cap; 0 turns it off', async () => {
    await setUp({ DOCWRIGHT_BEACON_VISITORS_PER_ADDRESS: '3' });
    for (let index = 0; index < 10; index++) await beacon(kit.t.app, browser(index));
    expect(await humans()).toBe(3);
    await kit.close();
    await setUp({ DOCWRIGHT_BEACON_VISITORS_PER_ADDRESS: '0' });
    for (let index = 0; index < 30; index++) await beacon(kit.t.app, browser(index));
    expect(await humans()).toBe(30);
    expect(await kit.t.services.database.db.selectFrom('analytics_beacon_senders').selectAll().execute()).toEqual([]);
  });
});
