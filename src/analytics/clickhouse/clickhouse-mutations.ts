import type { ClickHouseClient } from '@clickhouse/client';
import { identifier, raw, sql } from './clickhouse-literal.js';
import { localTable, onCluster, readTable, type ClickHouseTarget } from './clickhouse-migrations.js';

const POLL_MS = 25;
const TIMEOUT_MS = 300_000;

async function count(client: ClickHouseClient, query: string): Promise<number> {
  const [row] = await (await client.query({ query, format: 'JSONEachRow' })).json<{ n: string | number }>();
  return Number(row?.n ?? 0);
}

/**
 * Waits until the mutations (ALTER … DELETE) of one table are done; 18.16 has no
 * `mutations_sync`. On one server: its `system.mutations`. On a cluster the mutation runs
 * on every shard, so every shard's `system.mutations` is read (through `cluster()`, one
 * replica per shard; the other replicas apply the mutation from the replication log
 * shortly after). A replicated table learns of a new mutation from ZooKeeper a moment
 * after the ALTER returns, so an empty list alone proves nothing there: the wait also
 * lasts until no row matching `where` is left (through the Distributed table).
 */
export async function waitForMutations(client: ClickHouseClient, target: ClickHouseTarget, table: string, where?: string): Promise<void> {
  const { cluster, database } = target;
  const local = cluster === undefined ? table : `${table}_local`;
  const mutations = cluster === undefined ? raw('system.mutations') : raw(`cluster(${identifier(cluster)}, system, mutations)`);
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const pending = await count(client, sql`SELECT count() AS n FROM ${mutations} WHERE database = ${database} AND table = ${local} AND is_done = 0`);
    const left =
      pending === 0 && cluster !== undefined && where !== undefined
        ? await count(client, `SELECT count() AS n FROM ${readTable(target, table)} WHERE ${where}`)
        : 0;
    if (pending === 0 && left === 0) return;
    if (Date.now() > deadline) throw new Error(`ClickHouse mutations of ${local} did not finish within ${TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Deletes the rows of `table` matching `where` (ALTER … DELETE, on every shard) and waits until they are gone. */
export async function deleteRows(client: ClickHouseClient, target: ClickHouseTarget, table: string, where: string): Promise<void> {
  await client.command({ query: `ALTER TABLE ${localTable(target, table)}${onCluster(target)} DELETE WHERE ${where}` });
  await waitForMutations(client, target, table, where);
}
