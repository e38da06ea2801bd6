import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { AnalyticsStore } from '../../src/analytics/analytics-store.js';
import { ClickHouseAnalyticsStore } from '../../src/analytics/clickhouse/clickhouse-analytics-store.js';
import { ClickHouseGenerations } from '../../src/analytics/clickhouse/clickhouse-generations.js';
import { PostgresAnalyticsStore } from '../../src/analytics/postgres-analytics-store.js';
import { SqliteAnalyticsStore } from '../../src/analytics/sqlite-analytics-store.js';
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
  const sqlStore = t.services.database.dialect === 'postgres' ? new PostgresAnalyticsStore(t.services.database) : new SqliteAnalyticsStore(t.services.database);
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
