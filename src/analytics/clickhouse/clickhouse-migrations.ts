import pRetry from 'p-retry';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Clock } from '../../core/clock.js';
import { MIGRATIONS_ROOT } from '../../db/migrator.js';
import { identifier, raw, sql } from './clickhouse-literal.js';

export interface ClickHouseTarget {
  database: string;
  cluster: string | undefined;
}

export interface ClickHouseMigration {
  version: number;
  name: string;
  statements: (target: ClickHouseTarget) => string[];
}

const FILE_PATTERN = /^(\d{3,})-([a-z0-9-]+)\.sql$/;
const PLACEHOLDER = /\{\{(local|table|on_cluster|engine|distributed|redistribute)(?::(\w+))?(?::(\w+))?\}\}/g;

/** `db`.`name` of the table holding rows: on a cluster the replicated `name_local`. */
export function localTable(target: ClickHouseTarget, name: string): string {
  return `${identifier(target.database)}.${identifier(target.cluster === undefined ? name : `${name}_local`)}`;
}

/** `db`.`name` of the table queries read: on a cluster the Distributed one. */
export function readTable(target: ClickHouseTarget, name: string): string {
  return `${identifier(target.database)}.${identifier(name)}`;
}

export const onCluster = (target: ClickHouseTarget): string => (target.cluster === undefined ? '' : ` ON CLUSTER ${identifier(target.cluster)}`);

/**
 * Starts the DROP of a Distributed table that {{redistribute:NAME}} recreates; the migrator
 * skips that DROP when the table already has every column of NAME_local (clickhouse-migrations.ts).
 */
const REDISTRIBUTE = '/* redistribute */ ';

const createDistributed = (target: ClickHouseTarget, name: string, cluster: string): string =>
  `CREATE TABLE IF NOT EXISTS ${readTable(target, name)}${onCluster(target)} AS ${localTable(target, name)} ENGINE = Distributed(${identifier(cluster)}, ${identifier(target.database)}, ${identifier(`${name}_local`)}, intHash64(site))`;

function expand(text: string, target: ClickHouseTarget): string {
  return text.replace(PLACEHOLDER, (_match, kind: string, first: string | undefined, second: string | undefined) => {
    const { database, cluster } = target;
    if (kind === 'on_cluster') return onCluster(target);
    if (kind === 'local') return localTable(target, first!);
    if (kind === 'table') return readTable(target, first!);
    if (kind === 'engine') {
      if (cluster === undefined) return first!;
      // The {shard} and {replica} macros come from each server's configuration.
      return `Replicated${first!}('/clickhouse/tables/{shard}/${database}/${second!}_local', '{replica}')`;
    }
    if (cluster === undefined) return '';
    if (kind === 'distributed') return createDistributed(target, first!, cluster);
    // ALTER … ON CLUSTER of a Distributed table fails where shards set internal_replication
    // (as replicated tables need): "isn't replicated, but shard #N is replicated according to
    // its cluster definition". The Distributed table holds no rows (inserts are synchronous),
    // so it is dropped and created again over the altered local table instead.
    return `${REDISTRIBUTE}DROP TABLE IF EXISTS ${readTable(target, first!)}${onCluster(target)};\n${createDistributed(target, first!, cluster)}`;
  });
}

/** Comment lines dropped before the placeholders are expanded (comments name them too). */
const withoutComments = (text: string): string =>
  text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');

/** Statements of expanded migration code: split at a `;` ending a line, empty ones skipped. */
function splitStatements(code: string): string[] {
  return code
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

/** Reads `migrations/clickhouse/NNN-name.sql` in version order, numbered without gaps. */
export function loadClickHouseMigrations(root = MIGRATIONS_ROOT): ClickHouseMigration[] {
  const directory = join(root, 'clickhouse');
  const files = readdirSync(directory)
    .filter((file) => file.endsWith('.sql'))
    .sort();
  return files.map((file, index) => {
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new Error(`ClickHouse migration file name "${file}" must look like 001-create-things.sql`);
    if (Number(match[1]) !== index + 1) throw new Error(`ClickHouse migrations must be numbered 1, 2, 3… without gaps; found ${file}`);
    const code = withoutComments(readFileSync(join(directory, file), 'utf8'));
    return { version: index + 1, name: match[2]!, statements: (target) => splitStatements(expand(code, target)) };
  });
}

/**
 * Whether the Distributed table a redistribute DROP names already has its local table's
 * columns: then another process has recreated it, and dropping it again would make it
 * vanish for a moment under the processes already serving.
 */
async function distributedIsCurrent(client: ClickHouseClient, target: ClickHouseTarget, statement: string): Promise<boolean> {
  const name = /DROP TABLE IF EXISTS `[^`]+`\.`(\w+)`/.exec(statement)?.[1];
  if (name === undefined) throw new Error(`unexpected redistribute statement: ${statement}`);
  const columns = async (table: string) =>
    (
      await (
        await client.query({
          query: sql`SELECT name, type FROM system.columns WHERE database = ${target.database} AND table = ${table} ORDER BY name`,
          format: 'JSONEachRow',
        })
      ).json<{ name: string; type: string }>()
    )
      .map((column) => `${column.name} ${column.type}`)
      .join(', ');
  const distributed = await columns(name);
  return distributed !== '' && distributed === (await columns(`${name}_local`));
}

/** Concurrent `IF NOT EXISTS` on the same name may still lose the race inside the server. */
const ALREADY_EXISTS = /already exists|already being created/i;

/** A table of the statement is missing: on a cluster, another process may be between the DROP and CREATE of a redistribute. */
const UNKNOWN_TABLE = /Code: 60\b/;
const REDISTRIBUTE_WAIT_MS = 30_000;

async function runStatement(client: ClickHouseClient, target: ClickHouseTarget, statement: string): Promise<void> {
  const attempt = async (): Promise<void> => {
    try {
      await client.command({ query: statement });
    } catch (error) {
      if (error instanceof Error && ALREADY_EXISTS.test(error.message)) return;
      throw error;
    }
  };
  await pRetry(attempt, {
    // Every 100 ms while the other process recreates the table, for at most REDISTRIBUTE_WAIT_MS.
    retries: Number.POSITIVE_INFINITY,
    minTimeout: 100,
    factor: 1,
    maxRetryTime: REDISTRIBUTE_WAIT_MS,
    shouldRetry: ({ error }) => target.cluster !== undefined && UNKNOWN_TABLE.test(error.message),
  });
}

/**
 * Applies the migrations this database has not recorded. Safe when several processes
 * start together: every statement is idempotent, so a second runner repeats harmless
 * work, and the migrations table (a ReplacingMergeTree) keeps one row per version. A
 * database migrated by a newer Docwright is refused rather than half understood.
 */
export async function migrateClickHouse(
  client: ClickHouseClient,
  target: ClickHouseTarget,
  clock: Clock,
  migrations = loadClickHouseMigrations(),
): Promise<number[]> {
  const table = localTable(target, 'docwright_migrations');
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${identifier(target.database)}${onCluster(target)}` });
  // On a cluster one table replicated on every server (its path names no shard, its
  // replicas are named by shard and replica): a process of any shard sees every version.
  const engine =
    target.cluster === undefined
      ? 'ReplacingMergeTree'
      : `ReplicatedReplacingMergeTree('/clickhouse/tables/all/${target.database}/docwright_migrations_local', '{shard}_{replica}')`;
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${table}${onCluster(target)} (version UInt32, name String, applied_at Int64) ENGINE = ${engine} ORDER BY version`,
  });
  const rows = await (await client.query({ query: `SELECT DISTINCT version FROM ${table}`, format: 'JSONEachRow' })).json<{ version: number }>();
  const done = new Set(rows.map((row) => Number(row.version)));
  const newest = Math.max(0, ...done);
  if (newest > migrations.length) {
    throw new Error(`The ClickHouse analytics database is at migration ${newest}, newer than this Docwright knows (${migrations.length}); upgrade Docwright.`);
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    for (const statement of migration.statements(target)) {
      if (statement.startsWith(REDISTRIBUTE) && (await distributedIsCurrent(client, target, statement))) continue;
      await runStatement(client, target, statement);
    }
    await client.command({
      query: sql`INSERT INTO ${raw(table)} VALUES (${migration.version}, ${migration.name}, ${clock.now()})`,
    });
    applied.push(migration.version);
  }
  return applied;
}
