import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { BEGIN_INGEST } from '../../src/analytics/postgres-fold-horizon.js';
import { PostgresAnalyticsStore } from '../../src/analytics/postgres-analytics-store.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { TEST_SECRET } from '../helpers/test-app.js';
import { openTestDatabase } from '../helpers/test-database.js';
import { loadMigrations, migrate } from '../../src/db/migrator.js';
import { systemClock } from '../../src/core/clock.js';

/**
 * PostgreSQL ingest transactions commit in any order, so a fold must never move its mark
 * past a transaction that is still running, and a query must still count every hit
 * committed before it was asked. These tests hold transactions open by hand to create
 * the interleavings that concurrent ingest produces by chance.
 */
describe('PostgreSQL folds and concurrent ingest transactions', () => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  let held: pg.PoolClient;
  let today: number;

  beforeEach(async () => {
    kit = await createAnalyticsKit('postgres');
    today = Math.floor(kit.t.clock.now() / DAY);
    service = new AnalyticsService({ database: kit.t.services.database, clock: kit.t.clock, secret: TEST_SECRET, retentionDays: 30, projectSettings: async () => ({}) });
    const database = kit.t.services.database.raw;
    if (database.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    held = await database.pool.connect();
  });
  afterEach(async () => {
    await held.query('rollback').catch(() => {});
    held.release();
    await service.close();
    await kit.close();
  });

  const ingest = async (visitorId: string) => {
    const result = await service.ingest(kit.projectId, [{ timestamp: new Date(today * DAY - 3_600_000).toISOString(), path: '/a', visitorId, userAgent: USER_AGENTS.human }]);
    expect(result).toMatchObject({ accepted: 1, rejected: [] });
  };
  const totalVisitors = async () => (await service.visitors(kit.projectId)).totals.total;
  /** An ingest transaction left open: a copy of a stored hit under another visitor number. */
  const beginHeldIngest = async (visitor: number) => {
    await held.query(BEGIN_INGEST);
    await held.query(
      `insert into analytics_hits (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version)
       select site, at, page, $1, class, agent, user_agent, referrer, markdown_accept, classifier_version from analytics_hits limit 1`,
      [visitor],
    );
  };
  const settledWithin = async (promise: Promise<unknown>, ms: number) =>
    Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

  test('a hit whose transaction commits after a later one is folded once it commits, never skipped', async () => {
    await ingest('first');
    expect(await totalVisitors()).toBe(1);
    await beginHeldIngest(42);
    await ingest('third');
    // The third hit committed before the query was asked, above the open transaction: the query waits for it.
    const answer = totalVisitors();
    expect(await settledWithin(answer, 300)).toBe(false);
    await held.query('commit');
    expect(await answer).toBe(3);
    expect(await service.store.pendingHits()).toBe(0);
    expect(await totalVisitors()).toBe(3);
  });

  test('a rolled-back ingest transaction holds folds back only while it runs', async () => {
    await ingest('first');
    await beginHeldIngest(42);
    await ingest('third');
    const answer = totalVisitors();
    expect(await settledWithin(answer, 300)).toBe(false);
    await held.query('rollback');
    expect(await answer).toBe(2);
    expect(await service.store.pendingHits()).toBe(0);
  });

  test('a long transaction that writes no hits does not hold folds back', async () => {
    await held.query('begin');
    // It has a transaction id below every hit that follows, as a long job elsewhere would.
    await held.query('select pg_current_xact_id()');
    await ingest('first');
    await ingest('second');
    const started = performance.now();
    expect(await totalVisitors()).toBe(2);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await service.store.pendingHits()).toBe(0);
  });

  test('a fold waits a bounded time for a stuck ingest transaction, then leaves the hits above it for later', async () => {
    const store = new PostgresAnalyticsStore(kit.t.services.database, { horizonWaitMs: 200 });
    await ingest('first');
    await beginHeldIngest(42);
    await ingest('third');
    const started = performance.now();
    // Only the first hit is below the open transaction.
    expect(await store.fold(1_000)).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(await store.pendingHits()).toBe(1);
    await held.query('commit');
    expect(await store.fold(1_000)).toBe(2);
    expect(await store.pendingHits()).toBe(0);
    expect(await totalVisitors()).toBe(3);
  });

  test('a transaction with more hits than a fold chunk is folded whole', async () => {
    const events = Array.from({ length: 50 }, (_, index) => ({
      timestamp: new Date(today * DAY - 3_600_000).toISOString(),
      path: `/p${index % 7}`,
      visitorId: `v${index}`,
      userAgent: USER_AGENTS.human,
    }));
    expect((await service.ingest(kit.projectId, events)).accepted).toBe(50);
    await ingest('after');
    const store = new PostgresAnalyticsStore(kit.t.services.database);
    expect(await store.fold(10)).toBe(51);
    expect(await totalVisitors()).toBe(51);
  });
});

describe('PostgreSQL migration 004 (hits carry transaction ids)', () => {
  test('hits the sequence mark had folded stay folded, the others are folded next', async () => {
    const t = await openTestDatabase('postgres', { migrate: false });
    try {
      const migrations = loadMigrations('postgres');
      const before = migrations.findIndex((migration) => migration.version === 4);
      await migrate(t.database, systemClock, migrations.slice(0, before));
      const database = t.database.raw;
      if (database.dialect !== 'postgres') throw new Error('expected PostgreSQL');
      await database.pool.query(
        `insert into analytics_hits (site, at, page, visitor, class, markdown_accept, classifier_version)
         select 1, 0, 1, visitor, 1, 0, 1 from generate_series(1, 3) as visitor`,
      );
      await database.pool.query("update analytics_state set value = 1 where name = 'folded_seq'");
      await migrate(t.database, systemClock, migrations);
      const { rows } = await database.pool.query<{ transaction_id: string }>('select transaction_id::text from analytics_hits order by seq');
      expect(rows.map((row) => row.transaction_id)).toEqual(['0', '1', '1']);
      const state = await database.pool.query<{ name: string }>('select name from analytics_state order by name');
      expect(state.rows.map((row) => row.name)).toEqual(['folded_transaction', 'pruned_before']);
      const store = new PostgresAnalyticsStore(t.database);
      expect(await store.pendingHits()).toBe(2);
      expect(await store.fold(1_000)).toBe(2);
      expect(await store.pendingHits()).toBe(0);
    } finally {
      await t.close();
    }
  });
});
