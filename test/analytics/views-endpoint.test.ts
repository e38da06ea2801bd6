import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadClickHouseMigrations } from '../../src/analytics/clickhouse/clickhouse-migrations.js';
import { loadMigrations } from '../../src/db/migrator.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { clickhouseRows } from '../helpers/clickhouse-rows.js';
import { createAnalyticsKit, dayTime, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';

interface Counts {
  human: number;
  ai: number;
  total: number;
}

/**
 * What a client of the reference service's analytics API does, written against its
 * documented contract only: GET with dateFrom/dateTo (YYYY-MM-DD), limit and offset, read
 * totals and the list under the report's name, and ask for offset + limit while hasMore.
 */
async function referenceClient(kit: AnalyticsKit, report: 'visitors' | 'views', dateFrom: string, dateTo: string) {
  const entries: Array<{ path: string } & Counts> = [];
  let totals: Counts | undefined;
  for (let page = 1; ; page++) {
    const limit = 2;
    const response = await kit.get(report, { dateFrom, dateTo, limit, offset: (page - 1) * limit });
    if (response.statusCode !== 200) throw new Error(`${report} answered ${response.statusCode}`);
    const body = response.json<Record<string, unknown>>();
    totals = body.totals as Counts;
    entries.push(...(body[report] as Array<{ path: string } & Counts>));
    if (body.hasMore !== true) return { totals, entries, keys: Object.keys(body).sort() };
  }
}

describe.each(ANALYTICS_BACKENDS)('GET /views [%s]', (dialect) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit.close());

  const hit = (path: string, visitorId: string, userAgent: string, days = -1, ms = 3_600_000) => ({
    path,
    visitorId,
    userAgent,
    timestamp: dayTime(kit.t, days, ms),
  });
  const range = () => ({ dateFrom: dayTime(kit.t, -3).slice(0, 10), dateTo: dayTime(kit.t, 0).slice(0, 10) });

  test('a client of the reference analytics API reads /views as it reads /visitors', async () => {
    const events = [
      // /guide: one person three times, an assistant twice; /api: two people once; crawlers are neither.
      ...[1, 2, 3].map((ms) => hit('/guide', 'p1', USER_AGENTS.human, -1, ms)),
      ...[1, 2].map((ms) => hit('/guide', 'a1', USER_AGENTS.ai, -2, ms)),
      hit('/api', 'p2', USER_AGENTS.human),
      hit('/api', 'p3', USER_AGENTS.humanFirefox),
      hit('/llms.txt', 'c1', USER_AGENTS.aiTraining),
      hit('/guide', 'b1', USER_AGENTS.bot),
      hit('/z.md', 'a1', USER_AGENTS.ai),
      // Outside the range: before it, and on its exclusive end day.
      hit('/guide', 'p1', USER_AGENTS.human, -4),
      hit('/guide', 'p1', USER_AGENTS.human, 0),
    ];
    expect((await kit.send(events)).json()).toMatchObject({ accepted: events.length, rejected: [] });
    const { dateFrom, dateTo } = range();
    const visitors = await referenceClient(kit, 'visitors', dateFrom, dateTo);
    const views = await referenceClient(kit, 'views', dateFrom, dateTo);
    expect(views.keys).toEqual(['hasMore', 'totals', 'views']);
    expect(visitors.keys).toEqual(['hasMore', 'totals', 'visitors']);
    expect(views.totals).toEqual({ human: 5, ai: 3, total: 8 });
    expect(views.entries).toEqual([
      { path: '/guide', human: 3, ai: 2, total: 5 },
      { path: '/api', human: 2, ai: 0, total: 2 },
      { path: '/z.md', human: 0, ai: 1, total: 1 },
    ]);
    // Same pages (every page with a human or ai hit), every entry with the same four fields.
    expect(views.entries.map((entry) => entry.path).sort()).toEqual(visitors.entries.map((entry) => entry.path).sort());
    for (const entry of [...views.entries, ...visitors.entries]) expect(Object.keys(entry).sort()).toEqual(['ai', 'human', 'path', 'total']);
  });

  test('views stored before the page-view rollup existed are backfilled by its migration; unfolded hits still count once', async () => {
    const early = [hit('/a', 'p1', USER_AGENTS.human), hit('/a', 'p1', USER_AGENTS.human, -2), hit('/b', 'a1', USER_AGENTS.aiClaude)];
    expect((await kit.send(early)).statusCode).toBe(202);
    await kit.fold();
    const late = [hit('/a', 'p2', USER_AGENTS.humanFirefox), hit('/b', 'a1', USER_AGENTS.aiClaude, -2)];
    expect((await kit.send(late)).statusCode).toBe(202);
    const expected = {
      totals: { human: 3, ai: 2, total: 5 },
      views: [
        { path: '/a', human: 3, ai: 0, total: 3 },
        { path: '/b', human: 0, ai: 2, total: 2 },
      ],
      hasMore: false,
    };
    expect((await kit.get('views', range())).json()).toEqual(expected);

    // Back to the state before the migration, then run it again.
    const raw = kit.t.services.database.raw;
    if (dialect === 'clickhouse') {
      await clickhouseRows(kit.t, 'TRUNCATE TABLE analytics_page_view_days');
      await clickhouseRows(kit.t, 'TRUNCATE TABLE analytics_page_view_gen_days');
      const migrations = loadClickHouseMigrations();
      const target = { database: kit.t.config.analytics.clickhouse!.database, cluster: undefined };
      // The page-view migration, then what the generations migration does with its rollup (copied by generation, its view dropped).
      const statements = [
        ...migrations.find((candidate) => candidate.name === 'page-views')!.statements(target),
        ...migrations
          .find((candidate) => candidate.name === 'hit-generations')!
          .statements(target)
          .filter((statement) => statement.includes('page_view') && !statement.startsWith('CREATE')),
      ];
      // Twice: a second process repeating it adds nothing.
      for (let run = 0; run < 2; run++) {
        for (const statement of statements) await clickhouseRows(kit.t, statement);
      }
    } else {
      const migration = loadMigrations(raw.dialect).find((candidate) => candidate.name === 'page-views')!;
      if (raw.dialect === 'postgres') {
        await raw.pool.query('drop table analytics_page_view_counts; drop index analytics_hits_agents_at, analytics_hits_referrals_at');
        await raw.pool.query(migration.sql);
      } else {
        raw.connection.exec('drop table analytics_page_view_counts; drop index analytics_hits_agents_at; drop index analytics_hits_referrals_at');
        raw.connection.exec(migration.sql);
      }
    }
    expect((await kit.get('views', range())).json()).toEqual(expected);
    await kit.fold();
    expect((await kit.get('views', range())).json()).toEqual(expected);
    // Date-time bounds: the edges come from the raw hits.
    const edged = await kit.get('views', { dateFrom: dayTime(kit.t, -2, 3_600_001), dateTo: dayTime(kit.t, -1, 3_600_001) });
    expect(edged.json().totals).toEqual({ human: 2, ai: 1, total: 3 });
  });
});
