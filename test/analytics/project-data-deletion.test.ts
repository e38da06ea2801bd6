import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { BeaconSenderStore } from '../../src/analytics/beacon-sender-store.js';
import { NOTHING_DELETED, SITE_TABLES } from '../../src/analytics/project-data-deletion.js';
import { CLICKHOUSE_SITE_TABLES } from '../../src/analytics/clickhouse/clickhouse-site-tables.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { clickhouseCount, clickhouseRows } from '../helpers/clickhouse-rows.js';
import { DAY, USER_AGENTS } from '../helpers/analytics-kit.js';
import { createTestApp, createTestProject, TEST_SECRET, type TestApp } from '../helpers/test-app.js';

const AGENTS = [USER_AGENTS.human, USER_AGENTS.humanFirefox, USER_AGENTS.ai, USER_AGENTS.aiSearch, USER_AGENTS.aiTraining, USER_AGENTS.bot];

/** A few days of hits of every class on several pages; every third one carries an event id. */
function events(tag: string, today: number, days: number[], count: number): unknown[] {
  const result: unknown[] = [];
  for (let index = 0; index < count; index++) {
    const day = days[index % days.length]!;
    result.push({
      ...(index % 3 === 0 ? { id: `${tag}-${day}-${index}` } : {}),
      timestamp: new Date((today + day) * DAY + 60_000 * index).toISOString(),
      path: `/${tag}/page-${index % 7}`,
      visitorId: `${tag}-visitor-${index % 11}`,
      userAgent: AGENTS[index % AGENTS.length],
    });
  }
  return result;
}

describe.each(ANALYTICS_BACKENDS)("deleting a project's analytics rows [%s]", (dialect) => {
  let t: TestApp;
  let service: AnalyticsService;
  let today: number;
  let doomed: string;
  let kept: string;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    // No background fold: the hits sent last stay unfolded (pending batches on PostgreSQL).
    service = new AnalyticsService({
      database: t.services.database,
      clock: t.clock,
      secret: TEST_SECRET,
      retentionDays: 400,
      projectSettings: async () => ({}),
      fold: { idleMs: 3_600_000, maxDelayMs: 3_600_000 },
      clickhouse: t.config.analytics.clickhouse,
    });
    today = Math.floor(t.clock.now() / DAY);
    doomed = (await createTestProject(t.services, { name: 'Doomed' })).id;
    kept = (await createTestProject(t.services, { name: 'Kept' })).id;
    const projects = [
      [doomed, 'd'],
      [kept, 'k'],
    ] as const;
    for (const [projectId, tag] of projects) {
      for (const batch of [events(tag, today, [-5, -4, -3], 300), events(tag, today, [-2, -1], 200)]) {
        expect((await service.ingest(projectId, batch)).rejected).toEqual([]);
      }
    }
    await service.fold();
    const beacon = new BeaconSenderStore(t.services.database);
    for (const [projectId, tag] of projects) {
      // Late hits for days already folded, and today's, left unfolded.
      expect((await service.ingest(projectId, events(`${tag}late`, today, [-4, 0], 120))).rejected).toEqual([]);
      for (let sender = 1n; sender <= 3n; sender++) await beacon.admit(today, projectId, sender, `${sender}01`, 20);
    }
  });
  afterEach(async () => {
    await service.close();
    await t.close();
  });

  const count = async (sql: string, parameters: unknown[]) => Number((await service.store.select<{ n: number }>(sql, parameters))[0]!.n);
  /** Rows per table keyed by site; with ClickHouse, its tables (logical rows) and the dictionary left in SQLite. */
  const siteRows = async (site: number) => {
    const rows: Record<string, number> = {};
    if (dialect === 'clickhouse') {
      // Tables no counter reports (generations, the rollups before migration 004) may well be empty.
      for (const { table, rows: logical, counter } of CLICKHOUSE_SITE_TABLES) {
        if (counter === null) continue;
        rows[table] = await clickhouseCount(t, `select ${logical} from ${table} where site = ${site}`);
      }
      rows.analytics_dimensions = await count('select count(*) as n from analytics_dimensions where site = ?', [site]);
      return rows;
    }
    for (const { table } of SITE_TABLES) rows[table] = await count(`select count(*) as n from ${table} where site = ?`, [site]);
    return rows;
  };
  const pendingBatchesOf = (site: number) =>
    dialect === 'postgres'
      ? count('select count(*) as n from analytics_ingest_batches b where exists (select 1 from analytics_hits h where h.batch = b.id and h.site = ?)', [site])
      : Promise.resolve(0);
  const reports = async (projectId: string) => ({
    visitors: await service.visitors(projectId, { limit: 250 }),
    edges: await service.visitors(projectId, { from: (today - 4) * DAY + 3_600_000, to: today * DAY + 7_200_000, limit: 250 }),
    daily: await service.daily(projectId, { from: (today - 6) * DAY, to: (today + 1) * DAY }),
    traffic: await service.traffic(projectId, {}),
  });

  test('removes every row of the project in small batches; the other project reads exactly as before', async () => {
    const doomedSite = (await service.store.siteOf(doomed))!;
    const keptSite = (await service.store.siteOf(kept))!;
    const before = await siteRows(doomedSite);
    for (const [table, rows] of Object.entries(before)) expect(rows, table).toBeGreaterThan(0);
    const doomedPending = await pendingBatchesOf(doomedSite);
    if (dialect === 'postgres') expect(doomedPending).toBeGreaterThan(0);
    const keptRows = await siteRows(keptSite);
    const keptPending = await service.store.pendingHits();

    // A batch of 7 rows: every table takes many transactions.
    const deleted = await service.store.deleteProjectData(doomed, 7);
    expect(deleted).toEqual({
      hits: before.analytics_hits,
      eventIds: before.analytics_event_ids,
      visitDays: before.analytics_visit_days ?? 0,
      visitorCounts: before.analytics_visitor_counts ?? before.analytics_visitor_gen_days,
      hitCounts: before.analytics_hit_counts ?? before.analytics_hit_gen_days,
      pageViews: before.analytics_page_view_counts ?? before.analytics_page_view_gen_days,
      dimensions: before.analytics_dimensions,
      beaconSenders: 3,
      ingestBatches: doomedPending,
      sites: 1,
    });

    expect(await siteRows(doomedSite)).toEqual(Object.fromEntries(Object.keys(before).map((table) => [table, 0])));
    expect(await count('select count(*) as n from analytics_sites where site = ? or project_id = ?', [doomedSite, doomed])).toBe(0);
    expect(await count('select count(*) as n from analytics_beacon_senders where project_id = ?', [doomed])).toBe(0);
    expect(await pendingBatchesOf(doomedSite)).toBe(0);
    // The other project's rows, pending hits and cap rows are all there.
    expect(await siteRows(keptSite)).toEqual(keptRows);
    expect(await count('select count(*) as n from analytics_beacon_senders where project_id = ?', [kept])).toBe(3);
    // Only the deleted project's 120 unfolded hits stopped being pending.
    // ClickHouse has nothing pending: its rollups fill as hits are inserted.
    expect(await service.store.pendingHits()).toBe(dialect === 'clickhouse' ? 0 : keptPending - 120);

    // Again: nothing left to delete.
    expect(await service.store.deleteProjectData(doomed, 7)).toEqual(NOTHING_DELETED);
  });

  test("the other project's reports are unchanged (whole days, date-time edges, daily, traffic)", async () => {
    const expected = await reports(kept);
    expect(expected.visitors.visitors.length).toBeGreaterThan(0);
    expect(expected.edges.totals.total).toBeGreaterThan(0);
    await service.deleteProjectData(doomed);
    expect(await reports(kept)).toEqual(expected);
    // The deleted project answers like one that never had a hit; new hits start afresh.
    expect(await service.visitors(doomed)).toEqual({ totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
    expect((await service.ingest(doomed, events('again', today, [-1], 6))).rejected).toEqual([]);
    const again = await service.visitors(doomed, { limit: 250 });
    expect(again.visitors.every((page) => page.path.startsWith('/again/'))).toBe(true);
    expect(again.totals.total).toBeGreaterThan(0);
  });

  test('every analytics table keyed by site or project is covered', async () => {
    if (dialect === 'clickhouse') {
      const tables = await clickhouseRows<{ table: string }>(
        t,
        "select distinct table from system.columns where database = currentDatabase() and name = 'site' and table in (select name from system.tables where database = currentDatabase() and engine != 'MaterializedView')",
      );
      const clickhouseCovered = new Set<string>(CLICKHOUSE_SITE_TABLES.map(({ table }) => table));
      expect(tables.length).toBeGreaterThan(0);
      expect(tables.map(({ table }) => table).filter((table) => !clickhouseCovered.has(table))).toEqual([]);
    }
    const columns =
      dialect === 'postgres'
        ? await service.store.select<{ table: string }>(
            "select distinct table_name as \"table\" from information_schema.columns where table_schema = current_schema() and table_name like 'analytics%' and column_name in ('site', 'project_id')",
            [],
          )
        : await service.store.select<{ table: string }>(
            "select distinct m.name as \"table\" from sqlite_master m join pragma_table_info(m.name) c where m.type = 'table' and m.name like 'analytics%' and c.name in ('site', 'project_id')",
            [],
          );
    const covered = new Set([...SITE_TABLES.map(({ table }) => table), 'analytics_sites', 'analytics_beacon_senders']);
    expect(columns.map(({ table }) => table).filter((table) => !covered.has(table))).toEqual([]);
  });
});
