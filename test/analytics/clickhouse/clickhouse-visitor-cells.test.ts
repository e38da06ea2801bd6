import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { DimensionCount } from '../../../src/analytics/rollup-queries.js';
import { ClickHouseAnalyticsStore } from '../../../src/analytics/clickhouse/clickhouse-analytics-store.js';
import { ClickHouseCellBuilds, DEAD_BUILD_MS } from '../../../src/analytics/clickhouse/clickhouse-cell-builds.js';
import { deleteRows } from '../../../src/analytics/clickhouse/clickhouse-mutations.js';
import { ClickHouseGenerations, GENERATION_SWITCHED } from '../../../src/analytics/clickhouse/clickhouse-generations.js';
import { ClickHouseRangeCounter } from '../../../src/analytics/clickhouse/clickhouse-range-counter.js';
import { planRange } from '../../../src/analytics/range-plan.js';
import { SqliteAnalyticsStore } from '../../../src/analytics/sqlite-analytics-store.js';
import { createAnalyticsKit, DAY, kitAnalyticsService, USER_AGENTS, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { createTestProject } from '../../helpers/test-app.js';

/**
 * ClickHouse's visitor cells (docs/analytics.md, "ClickHouse"): once built they answer every
 * range of whole days exactly as the uniqExact states do, with the hits written after the
 * build added when they lie on at most three days of the range, and a report takes them only
 * while they are current for its range: not after a generation switch, not before the first
 * day they cover. A build that died before
 * recording itself is never read, and its cells are deleted once it is surely dead.
 */
describe('ClickHouse visitor cells', () => {
  let kit: AnalyticsKit;
  let store: ClickHouseAnalyticsStore;
  let site: number;
  let today: number;
  let client: ClickHouseClient;
  beforeEach(async () => {
    kit = await createAnalyticsKit('clickhouse');
    // A second store on the same ClickHouse database and spool, rebuilding at every fold.
    store = new ClickHouseAnalyticsStore(new SqliteAnalyticsStore(kit.t.services.database), kit.t.config.analytics.clickhouse!, kit.t.clock, {
      cellRebuild: { intervalMs: 0, newerDayShare: 0, quietMs: 0 },
    });
    today = Math.floor(kit.t.clock.now() / DAY);
    await send(0, 7);
    site = (await store.siteOf(kit.projectId))!;
    // Quiet: a refused query (the fresh lookup's size limit below) reaches the test as its error anyway.
    client = createClient({ url: kit.t.config.analytics.clickhouse!.url, log: { level: ClickHouseLogLevel.OFF } });
  });
  afterEach(async () => {
    await client.close();
    await store.close();
    await kit.close();
  });

  /** Hits on days today-7 … today-1 (from `since` on): visitors v0–v5 on /a–/c, v4 and v5 with an assistant, some days skipped. */
  async function send(first: number, count: number, since = -7): Promise<void> {
    const events = [];
    for (let day = since + 7; day < 7; day++) {
      for (let n = first; n < first + count; n++) {
        if ((n + day) % 3 === 0) continue;
        events.push({
          path: ['/a', '/b', '/c'][(n * day) % 3],
          visitorId: `v${n % 6}`,
          userAgent: n % 6 >= 4 ? USER_AGENTS.ai : USER_AGENTS.human,
          timestamp: new Date((today - 7 + day) * DAY + n * 60_000).toISOString(),
        });
      }
    }
    expect((await kit.send(events)).json()).toMatchObject({ rejected: [] });
  }

  /** One hit on each of the 13 days before send's 7 (today-20 … today-8): 20 stamped days in all. */
  async function sendOlderDays(): Promise<void> {
    const older = Array.from({ length: 13 }, (_, index) => ({
      path: '/a',
      visitorId: `old${index}`,
      userAgent: USER_AGENTS.human,
      timestamp: new Date((today - 20 + index) * DAY).toISOString(),
    }));
    expect((await kit.send(older)).json()).toMatchObject({ rejected: [] });
  }

  const canonical = (counts: readonly DimensionCount[]) => counts.map((count) => `${count.dim}/${count.grp}/${count.visitors}`).sort();

  const target = () => ({ database: kit.t.config.analytics.clickhouse!.database, cluster: undefined });
  const generations = () => new ClickHouseGenerations(client, target(), () => Date.now());

  /** The states' answer (no cells) for whole days [from, to) relative to today. */
  async function fromStates(from: number, to: number): Promise<string[]> {
    const counter = new ClickHouseRangeCounter(client, target(), generations());
    return canonical(await counter.countVisitors(site, planRange((today + from) * DAY, (today + to) * DAY), 'visitors'));
  }

  /** The cells' answer, or null when they are not current for the range; after draining the spool, as a report does. */
  async function fromCells(from: number, to: number, rawFrom: number | null = -30): Promise<DimensionCount[] | null> {
    await store.flush();
    return store.cells.visitors(site, today + from, today + to, await generations().of(site), rawFrom === null ? null : today + rawFrom);
  }

  /** One hit at 01:00 of day `day` (relative to today). */
  const hit = (day: number, visitorId: string, path: string, ai = false) => ({
    path,
    visitorId,
    userAgent: ai ? USER_AGENTS.ai : USER_AGENTS.human,
    timestamp: new Date((today + day) * DAY + 3_600_000).toISOString(),
  });

  test('every range of whole days: the cells answer as the states do', async () => {
    expect(await fromCells(-7, 0)).toBeNull();
    expect(await store.fold()).toBeGreaterThan(0);
    for (let from = -8; from < 0; from++) {
      for (let to = from + 1; to <= 1; to++) {
        const cells = await fromCells(from, to);
        expect(cells, `[${from}, ${to})`).not.toBeNull();
        expect(canonical(cells!), `[${from}, ${to})`).toEqual(await fromStates(from, to));
      }
    }
    // The report itself: the same answer as before the build.
    const range = { dateFrom: new Date((today - 7) * DAY).toISOString().slice(0, 10), dateTo: new Date(today * DAY).toISOString().slice(0, 10) };
    expect((await kit.get('visitors', range)).json()).toMatchObject({ totals: { human: 4, ai: 2, total: 6 } });
  });

  test('hits written after the build on more than three days of a range make it read the states, until the next build', async () => {
    await store.fold();
    await send(10, 1); // v4 (an assistant) on days -6, -4, -3, -1 …
    expect(await fromCells(-7, 0)).toBeNull();
    expect(canonical((await fromCells(-3, -2))!)).toEqual(await fromStates(-3, -2));
    expect(await store.fold()).toBeGreaterThan(0);
    for (const [from, to] of [
      [-7, 0],
      [-3, -2],
      [-6, -3],
    ] as const) {
      const cells = await fromCells(from, to);
      expect(cells).not.toBeNull();
      expect(canonical(cells!)).toEqual(await fromStates(from, to));
    }
  });

  test('hits written after the build, on up to three days of a range: the cells plus those hits answer as the states do', async () => {
    await store.fold();
    // Returning visitors (v0, v4), new ones, a new page, on today-2, today-1 and today.
    const fresh = [
      hit(-2, 'v0', '/a'),
      hit(-2, 'fresh1', '/d'),
      hit(-1, 'v4', '/b', true),
      hit(-1, 'fresh2', '/a', true),
      hit(-1, 'fresh1', '/a'),
      hit(0, 'v1', '/d'),
    ];
    expect((await kit.send(fresh)).json()).toMatchObject({ rejected: [] });
    for (let from = -7; from < 1; from++) {
      for (let to = from + 1; to <= 1; to++) {
        const cells = await fromCells(from, to);
        expect(cells, `[${from}, ${to})`).not.toBeNull();
        expect(canonical(cells!), `[${from}, ${to})`).toEqual(await fromStates(from, to));
      }
    }
    // Without every raw hit of the range for certain, the states answer.
    expect(await fromCells(-7, 0, null)).toBeNull();
    expect(await fromCells(-7, 0, -6)).toBeNull();
    expect(canonical((await fromCells(-6, 0, -6))!)).toEqual(await fromStates(-6, 0));
    // More visitors with fresh hits (five) than the lookup allows: the states answer.
    const cells = (freshVisitorsMax: number) => new ClickHouseCellBuilds(client, client, target(), () => Promise.resolve(), freshVisitorsMax);
    const map = await generations().of(site);
    expect(await cells(2).visitors(site, today - 7, today + 1, map, today - 30)).toBeNull();
    expect(canonical((await cells(100).visitors(site, today - 7, today + 1, map, today - 30))!)).toEqual(await fromStates(-7, 1));
    // A fourth day with fresh hits: the states for ranges holding all four.
    expect((await kit.send([hit(-5, 'v2', '/c')])).json()).toMatchObject({ rejected: [] });
    expect(await fromCells(-7, 1)).toBeNull();
    expect(canonical((await fromCells(-7, 0))!)).toEqual(await fromStates(-7, 0));
  });

  test('a build holds only the hits written before its mark; the later ones are added as fresh', async () => {
    // Past the stamps of beforeEach's hits (a drain stamps a second ahead), so only the days below are fresh.
    await store.flush();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const mark = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Written after the mark, on days the build reads: new visitors and v0 on a new page.
    expect((await kit.send([hit(-3, 'late1', '/a'), hit(-3, 'v0', '/e'), hit(-6, 'late2', '/b', true)])).json()).toMatchObject({ rejected: [] });
    await store.flush();
    await store.cells.build(site, mark, today - 30, 0);
    for (const [from, to] of [
      [-7, 0],
      [-3, -2],
      [-6, -5],
    ] as const) {
      expect(canonical((await fromCells(from, to))!), `[${from}, ${to})`).toEqual(await fromStates(from, to));
    }
  });

  test('a generation switch after the build makes the cells stale', async () => {
    await store.fold();
    expect(await fromCells(-7, 0)).not.toBeNull();
    await generations().record(site, { gen: 0, fromDay: today - 3, version: 1 }, GENERATION_SWITCHED, 'test', Date.now());
    expect(await fromCells(-7, 0)).toBeNull();
    // The next fold rebuilds it though no hit arrived.
    await store.fold();
    expect(await fromCells(-7, 0)).not.toBeNull();
  });

  test('the default policy rebuilds a site at once when a tenth of its days got newer hits, not for one day of many', async () => {
    const throttled = new ClickHouseAnalyticsStore(new SqliteAnalyticsStore(kit.t.services.database), kit.t.config.analytics.clickhouse!, kit.t.clock);
    try {
      // 7 days of hits (beforeEach) and 13 more days before them: 20 stamped days.
      await sendOlderDays();
      expect(await throttled.fold()).toBe(1);
      await send(40, 1, -1); // one newer day of 20: a live site's today
      expect(await throttled.fold()).toBe(0);
      // Not rebuilt: the cells answer with that day's fresh hits added.
      expect(await fromCells(-7, 0, null)).toBeNull();
      expect(canonical((await fromCells(-7, 0))!)).toEqual(await fromStates(-7, 0));
      await send(50, 1, -3); // three of 20: past a tenth
      expect(await throttled.fold()).toBe(1);
      const cells = await fromCells(-7, 0);
      expect(cells).not.toBeNull();
      expect(canonical(cells!)).toEqual(await fromStates(-7, 0));
    } finally {
      await throttled.close();
    }
  });

  test("a prune's fold builds a live site's newer day, and a new site's, at once and leaves a bulk load to the background fold", async () => {
    const pruning = new ClickHouseAnalyticsStore(new SqliteAnalyticsStore(kit.t.services.database), kit.t.config.analytics.clickhouse!, kit.t.clock, {
      cellRebuild: { intervalMs: 0, newerDayShare: 0.1, quietMs: 0 },
    });
    const service = kitAnalyticsService(kit, { idleMs: 3_600_000, maxDelayMs: 3_600_000 });
    const builds = async () =>
      Number(
        (
          await (
            await client.query({
              query: `SELECT count() AS n FROM ${target().database}.analytics_visitor_cell_builds WHERE site = ${site}`,
              format: 'JSONEachRow',
            })
          ).json<{ n: string }>()
        )[0]!.n,
      );
    try {
      // Seven days of new hits (beforeEach), none built: a bulk load, as far as a prune can tell.
      await service.prune();
      expect(await builds()).toBe(0);
      expect(await pruning.fold(undefined, undefined, 'prune')).toBe(0);
      // A new live site, one day of hits and no cells yet: a prune builds it at once.
      const live = (await createTestProject(kit.t.services, { name: 'Live docs' })).id;
      const hit = { path: '/x', visitorId: 'l1', userAgent: USER_AGENTS.human, timestamp: new Date((today - 1) * DAY).toISOString() };
      expect((await service.ingest(live, [hit])).rejected).toEqual([]);
      expect(await pruning.fold(undefined, undefined, 'prune')).toBe(1);
      expect(await pruning.fold(undefined, undefined, 'background')).toBe(1);
      // 13 more days (20 in all), built; then one newer day of 20: a live site's today.
      await sendOlderDays();
      expect(await pruning.fold()).toBe(1);
      await send(40, 1, -1);
      expect(await pruning.fold(undefined, undefined, 'prune')).toBe(1);
      expect(canonical((await fromCells(-7, 0))!)).toEqual(await fromStates(-7, 0));
      // Three newer days of 20 (today-4, -2 and -1): a bulk load's, left for the background fold.
      await send(50, 1, -4);
      expect(await pruning.fold(undefined, undefined, 'prune')).toBe(0);
      expect(await fromCells(-7, 0, null)).toBeNull();
    } finally {
      await service.close();
      await pruning.close();
    }
  });

  const count = async (query: string) => Number((await (await client.query({ query, format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n);

  test('after a build, only the two latest recorded builds keep their cells; one not recorded yet is left alone', async () => {
    const database = target().database;
    // Another process's build still being written: cells, no row yet.
    await client.command({
      query: `INSERT INTO ${database}.analytics_visitor_cells (site, build, gen, grp, dim, day, prev, visitors) VALUES (${site}, 42, 0, 1, 0, ${today - 5}, -1, 1000)`,
    });
    for (const first of [60, 70, 80]) {
      await send(first, 1, -2);
      expect(await store.fold()).toBe(1);
    }
    expect(await count(`SELECT count() AS n FROM ${database}.analytics_visitor_cell_builds WHERE site = ${site}`)).toBe(2);
    expect(await count(`SELECT uniqExact(build) AS n FROM ${database}.analytics_visitor_cells WHERE site = ${site} AND build != 42`)).toBe(2);
    expect(await count(`SELECT count() AS n FROM ${database}.analytics_visitor_cells WHERE site = ${site} AND build = 42`)).toBe(1);
    // The superseded builds' starts went with their cells.
    expect(await count(`SELECT count() AS n FROM ${database}.analytics_visitor_cell_starts WHERE site = ${site}`)).toBe(2);
    expect(canonical((await fromCells(-7, 0))!)).toEqual(await fromStates(-7, 0));
  });

  test('the next build deletes the cells of a build that died before recording itself, once its start is older than any build runs', async () => {
    const database = target().database;
    // Two builds with a start and cells but no row: one started past the limit (its process
    // died), one a minute ago (maybe still running in another process).
    for (const [build, age] of [
      [41, DEAD_BUILD_MS + 60_000],
      [42, 60_000],
    ] as const) {
      await client.command({
        query: `INSERT INTO ${database}.analytics_visitor_cell_starts (site, build, started) VALUES (${site}, ${build}, ${Date.now() - age})`,
      });
      await client.command({
        query: `INSERT INTO ${database}.analytics_visitor_cells (site, build, gen, grp, dim, day, prev, visitors) VALUES (${site}, ${build}, 0, 1, 0, ${today - 5}, -1, 1000)`,
      });
    }
    expect(await store.fold()).toBe(1);
    const left = async (table: string, build: number) => count(`SELECT count() AS n FROM ${database}.${table} WHERE site = ${site} AND build = ${build}`);
    expect([await left('analytics_visitor_cells', 41), await left('analytics_visitor_cell_starts', 41)]).toEqual([0, 0]);
    expect([await left('analytics_visitor_cells', 42), await left('analytics_visitor_cell_starts', 42)]).toEqual([1, 1]);
    expect(canonical((await fromCells(-7, 0))!)).toEqual(await fromStates(-7, 0));
  });

  test("a build that fails still deletes a dead build's cells first; only its own start is left", async () => {
    const database = target().database;
    await client.command({
      query: `INSERT INTO ${database}.analytics_visitor_cell_starts (site, build, started) VALUES (${site}, 41, ${Date.now() - DEAD_BUILD_MS - 60_000})`,
    });
    await client.command({
      query: `INSERT INTO ${database}.analytics_visitor_cells (site, build, gen, grp, dim, day, prev, visitors) VALUES (${site}, 41, 0, 1, 0, ${today - 5}, -1, 1000)`,
    });
    // The build's statement fails (as one stopped at the time limit does).
    const failing = { command: () => Promise.reject(new Error('Code: 159. DB::Exception: Timeout exceeded')) } as unknown as ClickHouseClient;
    await expect(
      new ClickHouseCellBuilds(client, failing, target(), (table, where) => deleteRows(client, target(), table, where)).build(site, Date.now(), today - 30, 0),
    ).rejects.toThrow(/Timeout/);
    expect(await count(`SELECT count() AS n FROM ${database}.analytics_visitor_cells WHERE site = ${site} AND build = 41`)).toBe(0);
    expect(await count(`SELECT count() AS n FROM ${database}.analytics_visitor_cell_starts WHERE site = ${site}`)).toBe(1);
    expect(await count(`SELECT count() AS n FROM ${database}.analytics_visitor_cell_builds WHERE site = ${site}`)).toBe(0);
  });

  test('cells of a build that never recorded itself are not read', async () => {
    await store.fold();
    const before = canonical((await fromCells(-7, 0))!);
    await client.command({
      query: `INSERT INTO ${target().database}.analytics_visitor_cells (site, build, gen, grp, dim, day, prev, visitors) VALUES (${site}, 42, 0, 1, 0, ${today - 5}, -1, 1000)`,
    });
    expect(canonical((await fromCells(-7, 0))!)).toEqual(before);
  });

  test('after a prune, a new build covers the days from the horizon on; earlier ranges read the states', async () => {
    await store.fold();
    await store.prune((today - 4) * DAY);
    await send(30, 1, -4);
    await store.fold();
    expect(await fromCells(-7, 0)).toBeNull();
    const cells = await fromCells(-4, 0);
    expect(cells).not.toBeNull();
    expect(canonical(cells!)).toEqual(await fromStates(-4, 0));
  });
});
