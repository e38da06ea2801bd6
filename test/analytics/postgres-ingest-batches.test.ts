import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { PostgresAnalyticsStore } from '../../src/analytics/postgres-analytics-store.js';
import { systemClock } from '../../src/core/clock.js';
import { loadMigrations, migrate } from '../../src/db/migrator.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit, kitAnalyticsService } from '../helpers/analytics-kit.js';
import { openTestDatabase } from '../helpers/test-database.js';

/**
 * PostgreSQL ingest transactions commit in any order. A fold claims the batches it can
 * see, so a batch that commits late must be folded later, never skipped or folded twice,
 * and a query must count every hit committed before it was asked without waiting for
 * transactions still running. These tests hold a transaction open by hand to create the
 * interleavings that concurrent ingest produces by chance.
 */
describe('PostgreSQL ingest batches and folds', () => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  let held: pg.PoolClient;
  let today: number;

  beforeEach(async () => {
    kit = await createAnalyticsKit('postgres');
    today = Math.floor(kit.t.clock.now() / DAY);
    // Folds only when a test asks: pending counts are then the test's to predict.
    service = kitAnalyticsService(kit, { idleMs: 3_600_000, maxDelayMs: 3_600_000 });
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

  const event = (visitorId: string, path = '/a') => ({
    timestamp: new Date(today * DAY - 3_600_000).toISOString(),
    path,
    visitorId,
    userAgent: USER_AGENTS.human,
  });
  const ingest = async (visitorId: string) => expect(await service.ingest(kit.projectId, [event(visitorId)])).toMatchObject({ accepted: 1, rejected: [] });
  const totalVisitors = async () => (await service.visitors(kit.projectId)).totals.total;
  /** An ingest transaction left open, written as the store writes one: a batch row and a copy of a stored hit under another visitor. */
  const beginHeldIngest = async (visitor: number) => {
    await held.query('begin');
    await held.query(
      `with batch as (insert into analytics_ingest_batches (hits) values (1) returning id)
       insert into analytics_hits (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, batch)
       select site, at, page, $1, class, agent, user_agent, referrer, markdown_accept, classifier_version, (select id from batch) from analytics_hits limit 1`,
      [visitor],
    );
  };

  test('a batch that commits after a later one is folded once it commits, and a query does not wait for it', async () => {
    await ingest('first');
    expect(await totalVisitors()).toBe(1);
    // A report neither folds nor waits for a fold: the hit stays pending, and is counted.
    expect(await service.store.pendingHits()).toBe(1);
    await service.fold();
    await beginHeldIngest(42);
    await ingest('third');
    const started = performance.now();
    expect(await totalVisitors()).toBe(2);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await service.fold()).toBe(1);
    expect(await service.store.pendingHits()).toBe(0);
    await held.query('commit');
    // Claimed together with a newer batch, the late one spans the id of one folded before: each is folded once.
    await ingest('fourth');
    expect(await service.store.pendingHits()).toBe(2);
    expect(await totalVisitors()).toBe(4);
    expect(await service.store.pendingHits()).toBe(2);
    expect(await service.fold()).toBe(2);
    expect(await service.fold()).toBe(0);
    expect(await totalVisitors()).toBe(4);
    const traffic = await service.traffic(kit.projectId);
    expect(traffic.classes.find((entry) => entry.class === 'human')).toMatchObject({ hits: 4, visitors: 4 });
  });

  test('a rolled-back ingest transaction leaves nothing to fold', async () => {
    await ingest('first');
    await beginHeldIngest(42);
    await ingest('third');
    await held.query('rollback');
    expect(await totalVisitors()).toBe(2);
    expect(await service.fold()).toBe(2);
    expect(await service.store.pendingHits()).toBe(0);
  });

  test('a fold does not wait for a long lock (as vacuum holds) on the hit table, and stays exact', async () => {
    await ingest('first');
    await held.query('begin');
    // The lock brin_summarize_new_values needs; a plain vacuum holds it for as long as it runs.
    await held.query('lock table analytics_hits in share update exclusive mode');
    await ingest('second');
    const started = performance.now();
    expect(await totalVisitors()).toBe(2);
    expect(performance.now() - started).toBeLessThan(6_000);
    await held.query('commit');
    await ingest('third');
    expect(await totalVisitors()).toBe(3);
  });

  test('a batch with more hits than a fold chunk is folded whole, later batches in further chunks', async () => {
    const events = Array.from({ length: 50 }, (_, index) => event(`v${index}`, `/p${index % 7}`));
    expect((await service.ingest(kit.projectId, events)).accepted).toBe(50);
    await ingest('after-1');
    await ingest('after-2');
    const store = new PostgresAnalyticsStore(kit.t.services.database);
    const pendingAfterEachChunk: number[] = [];
    const folded = await store.fold(10, async () => {
      pendingAfterEachChunk.push(await store.pendingHits());
      return true;
    });
    expect(folded).toBe(52);
    // The 50-hit batch alone, then the two small ones together (1 + 1 ≤ 10).
    expect(pendingAfterEachChunk).toEqual([2, 0]);
    expect(await totalVisitors()).toBe(52);
  });
});

describe('PostgreSQL migration 004 (ingest batches)', () => {
  test('hits the sequence mark had folded stay folded, the others become one batch folded next', async () => {
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
      const { rows } = await database.pool.query<{ visitor: number; batch: number }>('select visitor, batch from analytics_hits order by visitor');
      const batches = await database.pool.query<{ id: number; hits: number }>('select id, hits from analytics_ingest_batches');
      expect(batches.rows).toEqual([{ id: batches.rows[0]!.id, hits: 2 }]);
      expect(rows).toEqual([
        { visitor: 1, batch: 0 },
        { visitor: 2, batch: batches.rows[0]!.id },
        { visitor: 3, batch: batches.rows[0]!.id },
      ]);
      const state = await database.pool.query<{ name: string }>('select name from analytics_state order by name');
      expect(state.rows.map((row) => row.name)).toEqual(['pruned_before']);
      const store = new PostgresAnalyticsStore(t.database);
      expect(await store.pendingHits()).toBe(2);
      expect(await store.fold(1_000)).toBe(2);
      expect(await store.pendingHits()).toBe(0);
      // New hits must name their batch: the column keeps no default.
      await expect(
        database.pool.query('insert into analytics_hits (site, at, page, visitor, class, markdown_accept, classifier_version) values (1, 0, 1, 9, 1, 0, 1)'),
      ).rejects.toThrow(/batch/);
    } finally {
      await t.close();
    }
  });
});
