import { createClient } from '@clickhouse/client';

/**
 * What ClickHouse itself did for an ingest run: inserts and their durations from
 * system.query_log, the parts of each table now (active) and written in all, and the
 * parts written and merged per table from system.part_log.
 */
export async function clickHouseIngestStats(databaseUrl: string): Promise<string> {
  const url = new URL(databaseUrl);
  const database = url.pathname.slice(1);
  url.pathname = '/';
  const client = createClient({ url: url.toString(), clickhouse_settings: { log_queries: 0 } });
  try {
    await client.command({ query: 'SYSTEM FLUSH LOGS' });
    const rows = async (query: string) => (await client.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>();
    const inserts = await rows(
      `SELECT count() AS inserts, sum(written_rows) AS rows, round(avg(query_duration_ms)) AS avg_ms, quantileExact(0.5)(query_duration_ms) AS p50_ms, max(query_duration_ms) AS max_ms, round(sum(query_duration_ms) / 1000, 1) AS total_s
       FROM system.query_log WHERE type = 2 AND query LIKE 'INSERT%' AND query NOT LIKE '%docwright_migrations%'`,
    );
    const selects = await rows(
      `SELECT count() AS selects, round(avg(query_duration_ms)) AS avg_ms, round(sum(query_duration_ms) / 1000, 1) AS total_s FROM system.query_log WHERE type = 2 AND query LIKE 'SELECT%'`,
    );
    const parts = await rows(
      `SELECT table, countIf(active) AS active_parts, count() AS parts_incl_merged, sum(rows * active) AS rows FROM system.parts WHERE database = '${database.replace(/[^a-z0-9_]/g, '')}' GROUP BY table ORDER BY table`,
    );
    // event_type 2 = MergeParts: background merges, which ClickHouse pays after the inserts return.
    const merges = await rows(
      `SELECT table, countIf(event_type = 1) AS new_parts, round(sumIf(duration_ms, event_type = 1) / 1000, 1) AS write_s,
         countIf(event_type = 2) AS merges, round(sumIf(duration_ms, event_type = 2) / 1000, 1) AS merge_s, sumIf(rows, event_type = 2) AS merged_rows
       FROM system.part_log WHERE database = '${database.replace(/[^a-z0-9_]/g, '')}' GROUP BY table ORDER BY table`,
    );
    return [
      JSON.stringify(inserts[0]),
      JSON.stringify(selects[0]),
      ...parts.map((row) => JSON.stringify(row)),
      ...merges.map((row) => JSON.stringify(row)),
    ].join('\n');
  } finally {
    await client.close();
  }
}

/**
 * What ClickHouse ran while one request was answered (`fromMs`–`toMs`, wall clock):
 * queries from system.query_log and merges from system.part_log that overlap it, to see
 * where a slow first answer's time went. Seconds resolution (18.16's event_time).
 */
export async function clickHouseActivity(databaseUrl: string, fromMs: number, toMs: number): Promise<string> {
  const url = new URL(databaseUrl);
  url.pathname = '/';
  const client = createClient({ url: url.toString(), clickhouse_settings: { log_queries: 0 } });
  const from = Math.floor(fromMs / 1000) - 1;
  const to = Math.ceil(toMs / 1000) + 1;
  try {
    await client.command({ query: 'SYSTEM FLUSH LOGS' });
    const rows = async (query: string) => (await client.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>();
    const queries = await rows(
      `SELECT toUnixTimestamp(event_time) - ${from} AS end_s, query_duration_ms AS ms, read_rows, substring(replaceRegexpAll(query, '\\s+', ' '), 1, 110) AS query
       FROM system.query_log WHERE type = 2 AND toUnixTimestamp(event_time) BETWEEN ${from} AND ${to} ORDER BY event_time, query_duration_ms`,
    );
    const merges = await rows(
      `SELECT table, count() AS merges, round(sum(duration_ms) / 1000, 1) AS merge_s, sum(rows) AS rows
       FROM system.part_log WHERE event_type = 2 AND toUnixTimestamp(event_time) BETWEEN ${from} AND ${to} GROUP BY table ORDER BY table`,
    );
    return [
      `ClickHouse during the answer (seconds from ${from}):`,
      ...queries.map((row) => JSON.stringify(row)),
      ...merges.map((row) => JSON.stringify(row)),
    ].join('\n');
  } finally {
    await client.close();
  }
}
