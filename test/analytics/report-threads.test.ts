import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { PAGE_KIND } from '../../src/analytics/analytics-codes.js';
import { SqliteAnalyticsStore } from '../../src/analytics/sqlite-analytics-store.js';
import { MAX_WAITING_REPORTS, SqliteReportPool } from '../../src/analytics/sqlite-report-pool.js';
import { isDocwrightError } from '../../src/core/errors.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit, kitAnalyticsService } from '../helpers/analytics-kit.js';
import { bruteForceVisitors, oracleOrder, type OracleHit } from '../helpers/analytics-oracle.js';

/**
 * SQLite reports on a file read on worker threads (sqlite-report-pool.ts): the event loop
 * keeps serving while one runs, and the two threads of a report read one snapshot.
 */
describe('SQLite report threads', () => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  let pool: SqliteReportPool;
  let today: number;
  beforeEach(async () => {
    kit = await createAnalyticsKit('sqlite');
    today = Math.floor(kit.t.clock.now() / DAY);
    // No background fold: the test decides when folds run.
    service = kitAnalyticsService(kit, { idleMs: 3_600_000, maxDelayMs: 3_600_000 });
    const store = service.store;
    if (!(store instanceof SqliteAnalyticsStore) || store.reports.pool === null) throw new Error('expected a SQLite file store');
    pool = store.reports.pool;
  });
  afterEach(async () => {
    await service.close();
    await kit.close();
  });

  /** A second connection on the same file, as another process (a CLI command) would open it. */
  const otherProcess = () => {
    const raw = kit.t.services.database.raw;
    if (raw.dialect !== 'sqlite') throw new Error('expected SQLite');
    const database = openSqliteDatabase(raw.file);
    const connection = database.raw.dialect === 'sqlite' ? database.raw.connection : null;
    if (connection === null) throw new Error('expected SQLite');
    return { database, connection, store: new SqliteAnalyticsStore(database) };
  };

  /** 60 hits over 3 days, 7 visitors, 3 pages, humans and AI; sent in batches of 5. */
  const placed = (): OracleHit[] =>
    Array.from({ length: 60 }, (_, index) => ({
      at: (today - 1 - (index % 3)) * DAY + index * 60_000,
      path: `/p${index % 3}`,
      visitor: `v${(index * 5) % 7}`,
      userAgent: index % 4 === 0 ? USER_AGENTS.ai : USER_AGENTS.human,
    }));
  let hits: OracleHit[] = [];
  const send = async () => {
    hits = placed();
    for (let start = 0; start < hits.length; start += 5) {
      const events = hits
        .slice(start, start + 5)
        .map((hit) => ({ timestamp: new Date(hit.at).toISOString(), path: hit.path, visitorId: hit.visitor, userAgent: hit.userAgent }));
      expect((await service.ingest(kit.projectId, events)).accepted).toBe(events.length);
    }
  };

  test('the event loop keeps answering while a large unfolded report runs', async () => {
    const site = await service.store.ensureSite(kit.projectId);
    const pages = [...(await service.store.ensureDimensions(site, PAGE_KIND, ['/a', '/b', '/c', '/d'])).values()];
    const version = await service.store.ensureClassifierVersion('test');
    // 400,000 unfolded human hits of 100,000 visitors over 8 days, written in one statement.
    const other = otherProcess();
    other.connection
      .prepare(
        `with recursive n(i) as (select 0 union all select i + 1 from n where i < 399999)
         insert into analytics_hits (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version)
         select ?, ? + (i % 8) * ${DAY} + i, case i % 4 when 0 then ? when 1 then ? when 2 then ? else ? end, i % 100000, 1, null, null, null, 0, ? from n`,
      )
      .run(site, (today - 8) * DAY, ...pages, version);
    await other.database.close();
    await service.visitors(kit.projectId, { limit: 1 }).catch(() => {});
    let ticks = 0;
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    try {
      const answer = await service.visitors(kit.projectId, { limit: 10 });
      const took = performance.now() - started;
      expect(answer.totals).toEqual({ human: 100_000, ai: 0, total: 100_000 });
      expect(answer.visitors.map((page) => page.total)).toEqual([25_000, 25_000, 25_000, 25_000]);
      // The report's sorts of 400,000 hits run on the report threads: the timer kept firing.
      expect(took).toBeGreaterThan(50);
      expect(ticks).toBeGreaterThan(2);
      expect(longestGap).toBeLessThan(Math.max(40, took / 2));
    } finally {
      clearInterval(timer);
    }
  }, 60_000);

  test('a fold another process commits between the two threads’ snapshot starts cannot make totals and pages disagree', async () => {
    await send();
    const expected = bruteForceVisitors(hits, null, null);
    const other = otherProcess();
    let injected = 0;
    pool.faults.betweenSnapshotStarts = async () => {
      // Once: half the hits fold after the first thread's snapshot and before the second's.
      if (injected++ === 0) expect(await other.store.fold(30, () => Promise.resolve(false))).toBe(30);
    };
    try {
      const answer = await service.visitors(kit.projectId, { limit: 250 });
      expect(answer.totals).toEqual(expected.totals);
      expect(answer.visitors).toEqual(oracleOrder(expected.visitors));
      expect(pool.restarts).toBe(1);
    } finally {
      await other.database.close();
    }
  });

  test('a report thread that crashes fails its report with a clear error, and the next report gets new threads', async () => {
    await send();
    pool.faults.afterSnapshot = (workers) => {
      pool.faults = {};
      void workers[1]!.terminate();
    };
    const failed = await service.visitors(kit.projectId, { limit: 250 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDocwrightError(failed) && failed.code).toBe('analytics_report_failed');
    expect((await service.visitors(kit.projectId, { limit: 250 })).totals).toEqual(bruteForceVisitors(hits, null, null).totals);
  });

  test('reports beyond the queue bound are refused at once, and the queue drains', async () => {
    await send();
    const queued = new SqliteReportPool(kit.t.services.database.raw.dialect === 'sqlite' ? kit.t.services.database.raw.file : '', (work) => work());
    let release = () => {};
    const blocked = new Promise<void>((resolve) => (release = resolve));
    let entered = () => {};
    const started = new Promise<void>((resolve) => (entered = resolve));
    queued.faults.betweenSnapshotStarts = () => {
      entered();
      return blocked;
    };
    const read = () => queued.read(async (session) => (await session.all('select count(*) as n from analytics_hits', []))[0]);
    // One report runs (held between its snapshot starts), MAX_WAITING_REPORTS wait, one more is refused.
    const running = read();
    await started;
    const waiting = Array.from({ length: MAX_WAITING_REPORTS }, read);
    const refused = await read().then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDocwrightError(refused) && { code: refused.code, status: refused.status }).toEqual({ code: 'analytics_reports_busy', status: 503 });
    release();
    expect(await Promise.all([running, ...waiting])).toHaveLength(MAX_WAITING_REPORTS + 1);
    await queued.close();
    expect(queued.running).toBe(0);
  });

  test('closing the service stops the report threads; a later report starts them again', async () => {
    await send();
    await service.visitors(kit.projectId);
    expect(pool.running).toBe(2);
    await service.store.close();
    expect(pool.running).toBe(0);
    expect((await service.visitors(kit.projectId, { limit: 250 })).totals).toEqual(bruteForceVisitors(hits, null, null).totals);
  });
});
