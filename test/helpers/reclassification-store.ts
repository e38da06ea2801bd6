import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { expect } from 'vitest';
import type { AnalyticsStore } from '../../src/analytics/analytics-store.js';
import { ClickHouseAnalyticsStore } from '../../src/analytics/clickhouse/clickhouse-analytics-store.js';
import { ClickHouseGenerations } from '../../src/analytics/clickhouse/clickhouse-generations.js';
import { sqlAnalyticsStore } from '../../src/analytics/sql-analytics-store.js';
import { clickhouseRows } from './clickhouse-rows.js';
import type { TestApp } from './test-app.js';

/**
 * A store of its own on a test app's analytics databases, as `docwright reclassify` makes
 * one beside running servers; on ClickHouse also the generations, to read the hits that
 * answer for each day.
 */
export interface ReclassificationStore {
  store: AnalyticsStore;
  /** Undefined unless the app keeps analytics in ClickHouse. */
  generations: ClickHouseGenerations | undefined;
  close(): Promise<void>;
}

export async function openReclassificationStore(t: TestApp): Promise<ReclassificationStore> {
  const sqlStore = sqlAnalyticsStore(t.services.database);
  const clickhouse = t.config.analytics.clickhouse;
  if (clickhouse === undefined) return { store: sqlStore, generations: undefined, close: async () => {} };
  const store = new ClickHouseAnalyticsStore(sqlStore, clickhouse, t.clock);
  await store.ready();
  const client: ClickHouseClient = createClient({ url: clickhouse.url });
  const generations = new ClickHouseGenerations(client, { database: clickhouse.database, cluster: undefined }, () => t.clock.now());
  return {
    store,
    generations,
    async close() {
      await store.close();
      await client.close();
    },
  };
}

/**
 * The site's hits on ClickHouse of the generation answering for each day, each once
 * (asserted), with `columns` and a lookup of the primary database's dimension names.
 */
export async function answeringClickHouseHits<Row extends Record<string, unknown>>(
  t: TestApp,
  opened: ReclassificationStore,
  site: number,
  columns: ReadonlyArray<keyof Row & string>,
): Promise<{ rows: Row[]; nameOf: (id: unknown) => string | null }> {
  if (opened.generations === undefined) throw new Error('this app does not keep analytics in ClickHouse');
  const list = columns.join(', ');
  const rows = await clickhouseRows<Row & { copies: string }>(
    t,
    `SELECT ${list}, count() AS copies FROM analytics_hits WHERE site = ${site} AND ${(await opened.generations.of(site)).predicate()}
     GROUP BY ${list}, event_id, nonce`,
  );
  for (const row of rows) expect(Number(row.copies)).toBe(1);
  const names = new Map(
    (await opened.store.select<{ id: number; name: string }>('select id, name from analytics_dimensions where site = ?', [site])).map((row) => [
      Number(row.id),
      row.name,
    ]),
  );
  return { rows, nameOf: (id) => (id === null || Number(id) === 0 ? null : (names.get(Number(id)) ?? null)) };
}
