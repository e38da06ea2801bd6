import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AnalyticsService } from '../../../src/analytics/analytics-service.js';
import { HIT_CLASSES } from '../../../src/analytics/classification/classify-hit.js';
import { HIT_CATEGORIES, READ_KINDS, VERIFICATIONS } from '../../../src/analytics/classification/hit-category.js';
import { ClickHouseAnalyticsStore } from '../../../src/analytics/clickhouse/clickhouse-analytics-store.js';
import { SUPERSEDED_GRACE_MS } from '../../../src/analytics/clickhouse/clickhouse-generations.js';
import { loadClickHouseMigrations, migrateClickHouse } from '../../../src/analytics/clickhouse/clickhouse-migrations.js';
import { ReclassificationJob } from '../../../src/analytics/reclassification/reclassification-job.js';
import { SqliteAnalyticsStore } from '../../../src/analytics/sqlite-analytics-store.js';
import { parseClickHouseSettings } from '../../../src/config/clickhouse-settings.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createAnalyticsKit, DAY, kitAnalyticsService, USER_AGENTS } from '../../helpers/analytics-kit.js';
import { storeTaxonomyHits } from '../../helpers/taxonomy-hits.js';
import { bruteForceClasses, bruteForceViews, bruteForceVisitors, type OracleHit } from '../../helpers/analytics-oracle.js';
import { clusterUnavailable, startClickHouseCluster, type ClickHouseCluster } from '../../helpers/clickhouse-cluster.js';
import { OLD_TABLE, RECLASSIFIED_USER_AGENTS, storeClassifiedWith } from '../../helpers/reclassification-tables.js';
import { createTestApp, createTestProject, TEST_SECRET, type TestApp } from '../../helpers/test-app.js';
import { TABLES } from './cluster-tables.js';

/** Why the cluster cannot run here (no ZooKeeper); in CI that throws instead (clickhouse-cluster.ts). */
const unavailable = clusterUnavailable();
if (unavailable !== undefined) console.warn(`Skipping the ClickHouse cluster tests: ${unavailable}`);

const AGENTS = [USER_AGENTS.human, USER_AGENTS.humanFirefox, USER_AGENTS.ai, USER_AGENTS.aiTraining, USER_AGENTS.bot];
const PATHS = ['/', '/guide', '/api'];
const DAYS = 5;

async function rows<Row>(client: ClickHouseClient, query: string): Promise<Row[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<Row>();
}

/** A client of one server; quiet, since the errors it meets reach the test anyway. */
const clientOf = (url: string) => createClient({ url, log: { level: ClickHouseLogLevel.OFF } });

/** Polls until `check` holds (replication between servers is asynchronous), failing after 20 s. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 20 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(unavailable !== undefined)('ClickHouse analytics on a cluster: 2 shards, ZooKeeper, ON CLUSTER DDL', () => {
  let cluster: ClickHouseCluster;
  /** One client per server, in shard order. */
  let clients: ClickHouseClient[];
  beforeAll(async () => {
    cluster = await startClickHouseCluster(2);
    clients = cluster.servers.map((server) => clientOf(server.url));
  });
  afterAll(async () => {
    await Promise.all((clients ?? []).map((client) => client.close()));
    await cluster?.stop();
  });

  /** Rows of each shard's local table, for one site or all. */
  const perShard = (database: string, table: string, site?: number) =>
    Promise.all(
      clients.map(async (client) => {
        const where = site === undefined ? '' : ` WHERE site = ${site}`;
        const [row] = await rows<{ n: string }>(client, `SELECT count() AS n FROM ${database}.${table}_local${where}`);
        return Number(row?.n ?? 0);
      }),
    );

  // The database the service tests below use (their process finds it migrated, or migrates it itself when run alone).
  test('several processes on both shards migrate one new database at once; every server has the schema and sees every version', async () => {
    const target = { database: 'dw', cluster: cluster.name };
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const extra = cluster.servers.map((server) => clientOf(server.url));
    try {
      const applied = await Promise.all([...clients, ...extra].map((client) => migrateClickHouse(client, target, clock)));
      expect(applied.flat().length).toBeGreaterThanOrEqual(5);
      for (const client of clients) {
        const tables = await rows<{ name: string; engine: string }>(client, `SELECT name, engine FROM system.tables WHERE database = 'dw' ORDER BY name`);
        expect(Object.fromEntries(tables.map((table) => [table.name, table.engine]))).toEqual(TABLES);
        // The Distributed table was made again over the altered local one: it has every added column.
        const columns = (table: string) =>
          rows<{ name: string; type: string }>(client, `SELECT name, type FROM system.columns WHERE database = 'dw' AND table = '${table}' ORDER BY name`);
        expect(await columns('analytics_hits')).toEqual(await columns('analytics_hits_local'));
        expect((await columns('analytics_hits')).map((column) => column.name)).toEqual(
          expect.arrayContaining(['category', 'gen', 'address_block', 'evidence', 'written']),
        );
        expect(await columns('analytics_visitor_cell_builds')).toEqual(await columns('analytics_visitor_cell_builds_local'));
      }
      // The versions reach every server (one table replicated everywhere), so a later start on either shard has nothing to do.
      for (const client of clients) {
        await eventually(
          async () => (await rows(client, 'SELECT DISTINCT version FROM dw.docwright_migrations_local')).length === loadClickHouseMigrations().length,
          'the migration versions on every server',
        );
        expect(await migrateClickHouse(client, target, clock)).toEqual([]);
      }
    } finally {
      await Promise.all(extra.map((client) => client.close()));
    }
  });

  describe('through the service, with DOCWRIGHT_ANALYTICS_CLUSTER set', () => {
    let t: TestApp;
    let service: AnalyticsService;
    let today: number;
    beforeAll(async () => {
      const environment = { DOCWRIGHT_ANALYTICS_URL: `${cluster.servers[0]!.url}/dw`, DOCWRIGHT_ANALYTICS_CLUSTER: cluster.name };
      t = await createTestApp('sqlite', { ...environment, DOCWRIGHT_ANALYTICS_RETENTION_DAYS: '30' });
      today = Math.floor(t.clock.now() / DAY);
      service = new AnalyticsService({
        database: t.services.database,
        clock: t.clock,
        secret: TEST_SECRET,
        retentionDays: 30,
        projectSettings: async () => ({}),
        clickhouse: t.config.analytics.clickhouse,
      });
    });
    afterAll(async () => {
      await service?.close();
      await t?.close();
    });

    const send = async (projectId: string, hits: ReadonlyArray<OracleHit & { id?: string }>) => {
      const events = hits.map((hit) => ({
        id: hit.id,
        timestamp: new Date(hit.at).toISOString(),
        path: hit.path,
        visitorId: hit.visitor,
        userAgent: hit.userAgent,
      }));
      const result = await service.ingest(projectId, events);
      expect(result.rejected).toEqual([]);
      return result;
    };

    test('visitors, views, visitors/daily and traffic equal the brute-force counts, for sites on either shard', async () => {
      const start = (today - DAYS) * DAY;
      const hitBetween = (first: number, last: number, visitors: number) =>
        fc.record({
          path: fc.constantFrom(...PATHS),
          visitor: fc.integer({ min: 0, max: visitors }).map((n) => `v${n}`),
          userAgent: fc.constantFrom(...AGENTS),
          at: fc.integer({ min: first, max: last }).map((ms) => start + ms),
        });
      const hitArbitrary = hitBetween(0, DAYS * DAY - 1, 5);
      const lateArbitrary = hitBetween((DAYS - 2) * DAY, DAYS * DAY - 1, 8);
      const boundArbitrary = fc.option(
        fc.integer({ min: -1, max: DAYS + 1 }).chain((day) => fc.constantFrom(start + day * DAY, start + day * DAY + DAY / 3)),
        {
          nil: null,
        },
      );
      const sites: number[] = [];
      await fc.assert(
        fc.asyncProperty(
          fc.array(hitArbitrary, { minLength: 1, maxLength: 40 }),
          fc.nat(),
          fc.tuple(boundArbitrary, boundArbitrary),
          fc.array(lateArbitrary, { maxLength: 10 }),
          async (hits, cut, [from, to], late) => {
            const projectId = (await createTestProject(t.services)).id;
            // Two batches, the second repeating the first's ids: duplicates across inserts are found through the Distributed table.
            const withIds = hits.map((hit, index) => ({ ...hit, id: `e${index}` }));
            await send(projectId, withIds.slice(0, cut % (hits.length + 1)));
            expect((await send(projectId, withIds)).duplicates).toBe(cut % (hits.length + 1));
            sites.push((await service.store.siteOf(projectId))!);
            const range = { ...(from === null ? {} : { from }), ...(to === null || (from !== null && to <= from) ? {} : { to }) };
            const [lower, upper] = [range.from ?? null, range.to ?? null];
            const visitors = await service.visitors(projectId, range);
            expect({ totals: visitors.totals, visitors: visitors.visitors }).toEqual(bruteForceVisitors(hits, lower, upper));
            const views = await service.views(projectId, range);
            expect(views.totals).toEqual(bruteForceViews(hits, lower, upper).totals);
            expect((await service.traffic(projectId, range)).classes).toEqual(bruteForceClasses(hits, lower, upper));
            // Once built, ranges of whole days read the visitor cells, spread over both shards too.
            await service.fold();
            const folded = await service.visitors(projectId, range);
            expect({ totals: folded.totals, visitors: folded.visitors }).toEqual(bruteForceVisitors(hits, lower, upper));
            // Hits on the last two days after the build: exact at once (the states answer until the next build).
            if (late.length > 0) {
              await send(projectId, late);
              hits.push(...late);
              const live = await service.visitors(projectId, range);
              expect({ totals: live.totals, visitors: live.visitors }).toEqual(bruteForceVisitors(hits, lower, upper));
            }
            // visitors/daily needs both bounds: the scenario's where it has both, else the hits' days.
            const [dailyFrom, dailyTo] = lower !== null && upper !== null ? [lower, upper] : [start, (today + 1) * DAY];
            for (const entry of (await service.daily(projectId, { from: dailyFrom, to: dailyTo })).days) {
              const dayStart = Date.parse(`${entry.date}T00:00:00Z`);
              const expected = bruteForceVisitors(hits, Math.max(dailyFrom, dayStart), Math.min(dailyTo, dayStart + DAY)).totals;
              expect({ human: entry.human, ai: entry.ai, total: entry.total }).toEqual(expected);
            }
          },
        ),
        { numRuns: 8 },
      );
      // The sites' rows were spread over both shards (intHash64(site) picks the shard), so the answers merged both.
      expect((await perShard('dw', 'analytics_hits')).every((count) => count > 0)).toBe(true);
      expect((await perShard('dw', 'analytics_visitor_cell_builds')).every((count) => count > 0)).toBe(true);
      expect(new Set(sites).size).toBe(8);
    });

    test('visitors, views, daily, traffic, agents, pages, agent-errors and the summary answer as on SQLite for the same stored hits', async () => {
      const sqlite = await createAnalyticsKit('sqlite', { DOCWRIGHT_ANALYTICS_RETENTION_DAYS: '30' });
      const sqliteService = kitAnalyticsService(sqlite);
      const projectId = (await createTestProject(t.services)).id;
      const adminKey = (await t.services.keys.create({ projectId, scope: 'admin' })).key;
      const clustered = {
        get: (report: string, query: Record<string, string> = {}) =>
          t.app.inject({ method: 'GET', url: `/v1/analytics/${projectId}/${report}`, query, headers: { authorization: `Bearer ${adminKey}` } }),
      };
      try {
        const midnight = Math.floor(sqlite.t.clock.now() / DAY) * DAY;
        const hit = fc.record({
          at: fc.integer({ min: -9 * DAY, max: DAY / 2 }).map((ms) => midnight + ms),
          path: fc.constantFrom('/', '/guide', '/guide.md', '/llms.txt', '/api'),
          visitor: fc.integer({ min: 1, max: 6 }),
          class: fc.constantFrom(...HIT_CLASSES),
          agent: fc.option(fc.constantFrom('ChatGPT', 'GPTBot', 'Cursor'), { nil: undefined }),
          category: fc.option(fc.constantFrom(...HIT_CATEGORIES), { nil: undefined, freq: 4 }),
          verification: fc.constantFrom(...VERIFICATIONS),
          readKind: fc.constantFrom(...READ_KINDS),
          status: fc.option(fc.constantFrom(200, 404, 410, 500), { nil: undefined }),
          referral: fc.option(fc.constantFrom('chatgpt.com', 'claude.ai'), { nil: undefined, freq: 3 }),
        });
        const [hits] = fc.sample(fc.array(hit, { minLength: 20, maxLength: 60 }), { numRuns: 1, seed: 13 });
        await storeTaxonomyHits(sqliteService, sqlite.projectId, hits!);
        await storeTaxonomyHits(service, projectId, hits!);
        const day = (days: number) => new Date(midnight + days * DAY).toISOString();
        const ranges: Array<Record<string, string>> = [
          {},
          { dateFrom: day(-7).slice(0, 10), dateTo: day(0).slice(0, 10) },
          { dateFrom: day(-5 + 1 / 3), dateTo: day(-1 / 4) },
        ];
        for (const range of ranges)
          for (const report of ['visitors', 'views', 'visitors/daily', 'traffic', 'agents', 'pages', 'agent-errors', 'summary'] as const) {
            const [expected, actual] = await Promise.all([sqlite.get(report, range), clustered.get(report, range)]);
            expect(actual.statusCode, `${report} ${JSON.stringify(range)}`).toBe(expected.statusCode);
            expect(actual.json(), `${report} ${JSON.stringify(range)}`).toEqual(expected.json());
          }
        // Not alike by being empty: the sample has visitors, agents and agent errors.
        expect((await clustered.get('visitors')).json().totals.total).toBeGreaterThan(0);
        expect((await clustered.get('agents')).json().agents.length).toBeGreaterThan(0);
        expect((await clustered.get('agent-errors')).json().errors.length).toBeGreaterThan(0);
      } finally {
        await sqliteService.close();
        await sqlite.close();
      }
    });

    test('project deletion and the retention prune have removed the rows on every shard when they return', async () => {
      const projects = await Promise.all([0, 1, 2, 3].map(async (n) => (await createTestProject(t.services, { name: `P${n}` })).id));
      const old = (today - 20) * DAY;
      for (const [index, projectId] of projects.entries()) {
        await send(projectId, [
          { at: old + index, path: '/old', visitor: 'a', userAgent: USER_AGENTS.human },
          { at: (today - 1) * DAY + index, path: '/new', visitor: 'b', userAgent: USER_AGENTS.ai },
        ]);
      }
      const sites = await Promise.all(projects.map(async (projectId) => (await service.store.siteOf(projectId))!));
      expect((await perShard('dw', 'analytics_hits')).every((count) => count > 0)).toBe(true);

      // 15 days on, the retention of 30 days cuts the old hits (and the property test's, 5 days back then).
      t.clock.advance(15 * DAY);
      const pruned = await service.prune();
      expect(pruned.hits).toBeGreaterThanOrEqual(4);
      const horizon = (today + 15 - 30) * DAY;
      for (const client of clients) {
        const [row] = await rows<{ n: string }>(client, `SELECT count() AS n FROM dw.analytics_hits_local WHERE at < ${horizon}`);
        expect(Number(row!.n)).toBe(0);
      }
      // The prune leaves the day states: the old visitor still counts for the whole days around its hit.
      expect((await service.visitors(projects[0]!, { from: old - DAY, to: old + DAY })).totals).toEqual({ human: 1, ai: 0, total: 1 });

      // A deletion waits for every shard: with mutations held on the second shard (the one
      // the service does not talk to), it does not return while the rows there remain.
      const remote = (await Promise.all(sites.map((site) => perShard('dw', 'analytics_hits', site)))).findIndex((counts) => counts[1]! > 0);
      expect(remote).toBeGreaterThanOrEqual(0);
      await clients[1]!.command({ query: 'SYSTEM STOP MERGES dw.analytics_hits_local' });
      let settled = false;
      const deleting = service.deleteProjectData(projects[remote]!).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(settled).toBe(false);
      expect(await perShard('dw', 'analytics_hits', sites[remote])).toEqual([0, 1]);
      await clients[1]!.command({ query: 'SYSTEM START MERGES dw.analytics_hits_local' });
      // (18.16's replication queue then sleeps up to 10 s before it runs the held mutation.)
      expect((await deleting).hits).toBe(1);

      for (const [index, projectId] of projects.entries()) {
        const deleted = await service.deleteProjectData(projectId);
        expect(deleted.hits).toBe(index === remote ? 0 : 1);
        for (const table of ['analytics_hits', 'analytics_visitor_gen_days', 'analytics_hit_gen_days'])
          expect(await perShard('dw', table, sites[index]), `${table} of site ${sites[index]}`).toEqual([0, 0]);
        expect((await service.visitors(projectId)).totals).toEqual({ human: 0, ai: 0, total: 0 });
      }
    });

    test('reclassification rewrites the hits of sites on either shard; every report then equals that of hits stored with the new table', async () => {
      // A database of its own: the earlier tests' sites hold hits no table version describes.
      const app = await createTestApp('sqlite', {
        DOCWRIGHT_ANALYTICS_URL: `${cluster.servers[0]!.url}/dw_reclassify`,
        DOCWRIGHT_ANALYTICS_CLUSTER: cluster.name,
        DOCWRIGHT_ANALYTICS_RETENTION_DAYS: '30',
      });
      // Through the second shard's server: the run's scratch tables and joins are on the server it talks to.
      const settings = parseClickHouseSettings({ url: `${cluster.servers[1]!.url}/dw_reclassify`, cluster: cluster.name });
      const store = new ClickHouseAnalyticsStore(new SqliteAnalyticsStore(app.services.database), settings, app.clock);
      try {
        await store.ready();
        const day = Math.floor(app.clock.now() / DAY);
        const start = (day - 5) * DAY;
        const [hits] = fc.sample(
          fc.array(
            fc
              .record({
                at: fc.integer({ min: 0, max: 5 * DAY - 1 }).map((ms) => start + ms),
                path: fc.constantFrom('/', '/guide', '/guide.md', '/llms.txt'),
                visitor: fc.integer({ min: 0, max: 5 }).map((n) => `v${n}`),
                userAgent: fc.constantFrom(...RECLASSIFIED_USER_AGENTS),
                referrer: fc.constantFrom(null, 'https://chatgpt.com/', 'https://example.com/'),
                markdown: fc.boolean(),
              })
              .map((hit) => ({ ...hit, accept: hit.markdown ? 'text/markdown' : null })),
            { minLength: 30, maxLength: 30 },
          ),
          { numRuns: 1, seed: 14 },
        );
        const pairs = await Promise.all(
          [0, 1, 2, 3].map(async (n) => ({
            reclassified: (await createTestProject(app.services, { name: `Old table ${n}` })).id,
            fresh: (await createTestProject(app.services, { name: `New table ${n}` })).id,
          })),
        );
        // Sites 1–4 to reclassify (two on each shard: intHash64(site) picks the shard), 5–8 stored with the new table.
        for (const { reclassified } of pairs) await storeClassifiedWith(store, app.clock.now(), reclassified, hits!, OLD_TABLE);
        for (const { fresh } of pairs) await storeClassifiedWith(store, app.clock.now(), fresh, hits!, 'current');
        const sites = await Promise.all(pairs.map(async ({ reclassified }) => (await store.siteOf(reclassified))!));
        // This store's spool is its own (settings made here name no file): written into ClickHouse before it is counted there.
        await store.flush();
        const shardsOf = () => Promise.all(sites.map((site) => perShard('dw_reclassify', 'analytics_hits', site)));
        // Sites on both shards, so the run reads and writes through both.
        expect(new Set((await shardsOf()).map((counts) => counts.findIndex((count) => count > 0))).size).toBe(2);

        const progress = await new ReclassificationJob(store).run();
        expect(progress).toMatchObject({ state: 'done', sites: pairs.length, hitsRewritten: pairs.length * hits!.length });
        expect((await new ReclassificationJob(store).run()).hitsRewritten).toBe(0);

        const get = async (projectId: string, report: string) => {
          const key = (await app.services.keys.create({ projectId, scope: 'admin' })).key;
          const query = { dateFrom: new Date(start).toISOString().slice(0, 10), dateTo: new Date((day + 1) * DAY).toISOString().slice(0, 10), limit: '250' };
          const response = await app.app.inject({
            method: 'GET',
            url: `/v1/analytics/${projectId}/${report}`,
            query,
            headers: { authorization: `Bearer ${key}` },
          });
          expect(response.statusCode, report).toBe(200);
          return response.json<Record<string, unknown>>();
        };
        for (const { reclassified, fresh } of pairs) {
          expect((await get(reclassified, 'visitors')).totals).toEqual(bruteForceVisitors(hits!, null, null).totals);
          for (const report of ['visitors', 'views', 'visitors/daily', 'traffic', 'agents', 'pages', 'agent-errors'])
            expect(await get(reclassified, report), report).toEqual(await get(fresh, report));
        }

        // Once the grace period is over, the retention prune deletes the superseded rows on every shard.
        app.clock.advance(SUPERSEDED_GRACE_MS + 1);
        await store.prune(0);
        for (const counts of await shardsOf()) expect(counts.reduce((sum, count) => sum + count, 0)).toBe(hits!.length);
      } finally {
        await store.close();
        await app.close();
      }
    });
  });
});
