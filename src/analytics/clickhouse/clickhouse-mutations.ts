import type { ClickHouseClient } from '@clickhouse/client';
import { sql } from './clickhouse-literal.js';
import type { ClickHouseTarget } from './clickhouse-migrations.js';

const POLL_MS = 25;
const TIMEOUT_MS = 300_000;

/**
 * Waits until the mutations (ALTER … DELETE) of one table are done on the server this
 * client talks to; 18.16 has no `mutations_sync`. On a cluster that is one replica: the
 * others apply the same mutation from the replication log shortly after.
 */
export async function waitForMutations(client: ClickHouseClient, target: ClickHouseTarget, table: string): Promise<void> {
  const local = target.cluster === undefined ? table : `${table}_local`;
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const [row] = await (
      await client.query({
        query: sql`SELECT count() AS n FROM system.mutations WHERE database = ${target.database} AND table = ${local} AND is_done = 0`,
        format: 'JSONEachRow',
      })
    ).json<{ n: string | number }>();
    if (Number(row?.n ?? 0) === 0) return;
    if (Date.now() > deadline) throw new Error(`ClickHouse mutations of ${local} did not finish within ${TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
