import type { Config } from '../../src/config/load-config.js';

/** Rows of a query against the ClickHouse analytics database of a test app's config (for assertions on what is stored). */
export async function clickhouseRows<Row>(config: Config, query: string): Promise<Row[]> {
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
export async function clickhouseCount(config: Config, query: string): Promise<number> {
  const [row] = await clickhouseRows<Record<string, unknown>>(config, query);
  return Number(Object.values(row ?? {})[0] ?? 0);
}
