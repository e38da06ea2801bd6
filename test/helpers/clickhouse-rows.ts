import type { AnalyticsStore } from '../../src/analytics/analytics-store.js';
import { ClickHouseAnalyticsStore } from '../../src/analytics/clickhouse/clickhouse-analytics-store.js';
import { sqlAnalyticsStore } from '../../src/analytics/sql-analytics-store.js';
import type { Config } from '../../src/config/load-config.js';
import type { TestApp } from './test-app.js';

/**
 * Writes every hit the test app's ClickHouse spool holds into ClickHouse, as a second
 * process sharing the spool file would (clickhouse-spool.ts): what a test then reads from
 * ClickHouse's tables includes every hit whose request was answered.
 */
export async function flushClickHouseSpool(t: TestApp): Promise<void> {
  const settings = t.config.analytics.clickhouse;
  if (settings === undefined) return;
  const database = t.services.database;
  const primary: AnalyticsStore = sqlAnalyticsStore(database);
  // The settings name the app's spool file (the data directory's).
  const store = new ClickHouseAnalyticsStore(primary, settings, t.clock);
  try {
    await store.flush();
  } finally {
    await store.close();
  }
}

/**
 * Rows of a query against the ClickHouse analytics database of a test app (for assertions
 * on what is stored): its spool is flushed first. With only a config, ClickHouse is asked as is.
 */
export async function clickhouseRows<Row>(source: TestApp | Config, query: string): Promise<Row[]> {
  const config = 'services' in source ? source.config : source;
  if ('services' in source) await flushClickHouseSpool(source);
  const settings = config.analytics.clickhouse;
  if (settings === undefined) throw new Error('this app does not keep analytics in ClickHouse');
  const url = new URL(settings.url);
  url.searchParams.set('database', settings.database);
  url.searchParams.set('default_format', 'JSONEachRow');
  const response = await fetch(url, { method: 'POST', body: query });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse answered ${response.status}: ${text}`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Row);
}

/** The first column of the first row, as a number (count() and friends). */
export async function clickhouseCount(source: TestApp | Config, query: string): Promise<number> {
  const [row] = await clickhouseRows<Record<string, unknown>>(source, query);
  return Number(Object.values(row ?? {})[0] ?? 0);
}
