import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { pruneAnalytics } from '../../src/analytics/analytics-maintenance.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { clickhouseCount } from '../helpers/clickhouse-rows.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { bruteForceVisitors, type OracleHit } from '../helpers/analytics-oracle.js';
import { TEST_SECRET } from '../helpers/test-app.js';

describe.each(ANALYTICS_BACKENDS)('retention [%s]', (dialect) => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  let today: number;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect, { DOCWRIGHT_ANALYTICS_RETENTION_DAYS: '10' });
    today = Math.floor(kit.t.clock.now() / DAY);
    service = new AnalyticsService({
      database: kit.t.services.database,
      clock: kit.t.clock,
      secret: TEST_SECRET,
      retentionDays: 10,
      projectSettings: async () => ({}),
      clickhouse: kit.t.config.analytics.clickhouse,
    });
  });
  afterEach(async () => {
    await service.close();
    await kit.close();
  });

  const hits: OracleHit[] = [];
  const send = async (day: number, visitor: string, path = '/a', userAgent: string = USER_AGENTS.human) => {
    const hit = { at: (today + day) * DAY + 3_600_000, path, visitor, userAgent };
    hits.push(hit);
    const result = await service.ingest(kit.projectId, [{ timestamp: new Date(hit.at).toISOString(), path, visitorId: visitor, userAgent }]);
    expect(result.rejected).toEqual([]);
  };
  /** Rows of a table, in ClickHouse when analytics live there. */
  const rows = async (table: string) =>
    dialect === 'clickhouse'
      ? clickhouseCount(kit.t, `select count() from ${table}`)
      : (await service.store.select<{ n: number }>(`select count(*) as n from ${table}`, []))[0]!.n;
  const rawHits = () => rows('analytics_hits');

  test('pruning drops old raw hits and keeps day-granular counts exact, also for hits arriving afterwards', async () => {
    hits.length = 0;
    await send(-9, 'v');
    await send(-8, 'v');
    await send(-2, 'v');
    await send(-9, 'w', '/b', USER_AGENTS.ai);
    await send(-7, 'w', '/a', USER_AGENTS.ai);
    await service.fold();
    expect(await rawHits()).toBe(5);

    kit.t.clock.advance(5 * DAY);
    const counts = await pruneAnalytics(service);
    expect(counts.hits).toBe(4);
    // ClickHouse keeps per-day states instead of visit days, and prunes none of them.
    if (dialect !== 'clickhouse') expect(counts.visitDays).toBeGreaterThan(0);
    expect(await rawHits()).toBe(1);

    // After the prune: a hit between the kept visit day (-8) and a later one (-2).
    await send(-4, 'v');
    await send(-3, 'w');
    for (let from = -10; from <= 0; from++) {
      for (let to = from + 1; to <= 1; to++) {
        const expected = bruteForceVisitors(hits, (today + from) * DAY, (today + to) * DAY);
        const actual = await service.visitors(kit.projectId, { from: (today + from) * DAY, to: (today + to) * DAY });
        expect(actual.totals, `[${from}, ${to})`).toEqual(expected.totals);
        expect(actual.visitors, `[${from}, ${to})`).toEqual(expected.visitors);
      }
    }
    expect((await service.visitors(kit.projectId)).totals).toEqual(bruteForceVisitors(hits, null, null).totals);
  });

  test('a time of day before the retention horizon is refused; dates there still work', async () => {
    await send(-9, 'v');
    kit.t.clock.advance(5 * DAY);
    await service.prune();
    const from = (today - 9) * DAY;
    await expect(service.visitors(kit.projectId, { from: from + 1 })).rejects.toMatchObject({ status: 400, errors: [{ path: 'dateFrom' }] });
    await expect(service.visitors(kit.projectId, { from, to: from + DAY + 5 })).rejects.toMatchObject({ status: 400, errors: [{ path: 'dateTo' }] });
    expect((await service.visitors(kit.projectId, { from, to: from + DAY })).totals.total).toBe(1);
    const response = await kit.get('visitors', { dateFrom: new Date(from + 1).toISOString() });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].path).toBe('dateFrom');
    // Within the retention period a time of day is fine.
    expect((await service.visitors(kit.projectId, { from: kit.t.clock.now() - DAY + 1 })).totals.total).toBe(0);
  });

  test('after a prune, raising the retention does not let older hits in', async () => {
    await send(-2, 'v');
    kit.t.clock.advance(20 * DAY);
    await service.prune();
    const generous = new AnalyticsService({
      database: kit.t.services.database,
      clock: kit.t.clock,
      secret: TEST_SECRET,
      retentionDays: 100,
      projectSettings: async () => ({}),
      clickhouse: kit.t.config.analytics.clickhouse,
    });
    try {
      const old = new Date(kit.t.clock.now() - 15 * DAY).toISOString();
      const result = await generous.ingest(kit.projectId, [{ timestamp: old, path: '/a', visitorId: 'v' }]);
      expect(result.rejected).toMatchObject([{ index: 0, code: 'timestamp_too_old' }]);
      const recent = new Date(kit.t.clock.now() - 9 * DAY).toISOString();
      expect((await generous.ingest(kit.projectId, [{ timestamp: recent, path: '/a', visitorId: 'v' }])).rejected).toEqual([]);
    } finally {
      await generous.close();
    }
  });

  test('event ids older than the horizon are forgotten with their hits', async () => {
    await service.ingest(kit.projectId, [{ id: 'e1', path: '/a', visitorId: 'v', timestamp: new Date((today - 1) * DAY).toISOString() }]);
    const ids = () => rows('analytics_event_ids');
    expect(await ids()).toBe(1);
    kit.t.clock.advance(12 * DAY);
    expect((await service.prune()).eventIds).toBe(1);
    expect(await ids()).toBe(0);
  });
});
