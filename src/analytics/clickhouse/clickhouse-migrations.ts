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
const PLACEHOLDER = /\{\{(local|table|on_cluster|cluster_only|engine|distributed)(?::(\w+))?(?::(\w+))?\}\}/g;

/** `db`.`name` of the table holding rows: on a cluster the replicated `name_local`. */
export function localTable(target: ClickHouseTarget, name: string): string {
  return `${identifier(target.database)}.${identifier(target.cluster === undefined ? name : `${name}_local`)}`;
}

/** `db`.`name` of the table queries read: on a cluster the Distributed one. */
export function readTable(target: ClickHouseTarget, name: string): string {
  return `${identifier(target.database)}.${identifier(name)}`;
}

export const onCluster = (target: ClickHouseTarget): string => (target.cluster === undefined ? '' : ` ON CLUSTER ${identifier(target.cluster)}`);

function expand(text: string, target: ClickHouseTarget): string {
  return text.replace(PLACEHOLDER, (_match, kind: string, first: string | undefined, second: string | undefined) => {
    const { database, cluster } = target;
    if (kind === 'on_cluster') return onCluster(target);
    // At the start of a one-line statement: a comment on one server, so the line is dropped.
    if (kind === 'cluster_only') return cluster === undefined ? '-- ' : '';
    if (kind === 'local') return localTable(target, first!);
    if (kind === 'table') return readTable(target, first!);
    if (kind === 'engine') {
      if (cluster === undefined) return first!;
      // The {shard} and {replica} macros come from each server's configuration.
      return `Replicated${first!}('/clickhouse/tables/{shard}/${database}/${second!}_local', '{replica}')`;
    }
    if (cluster === undefined) return '';
    return `CREATE TABLE IF NOT EXISTS ${readTable(target, first!)}${onCluster(target)} AS ${localTable(target, first!)} ENGINE = Distributed(${identifier(cluster)}, ${identifier(database)}, ${identifier(`${first!}_local`)}, intHash64(site))`;
  });
}

/** Statements of a migration file: comment lines dropped, split at a `;` ending a line, empty ones skipped. */
function splitStatements(text: string): string[] {
  const code = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
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
    const text = readFileSync(join(directory, file), 'utf8');
    return { version: index + 1, name: match[2]!, statements: (target) => splitStatements(expand(text, target)) };
  });
}

/** Concurrent `IF NOT EXISTS` on the same name may still lose the race inside the server. */
const ALREADY_EXISTS = /already exists|already being created/i;

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
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${table}${onCluster(target)} (version UInt32, name String, applied_at Int64) ENGINE = ${expand('{{engine:ReplacingMergeTree:docwright_migrations}}', target)} ORDER BY version`,
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
      try {
        await client.command({ query: statement });
      } catch (error) {
        if (!(error instanceof Error && ALREADY_EXISTS.test(error.message))) throw error;
      }
    }
    await client.command({
      query: sql`INSERT INTO ${raw(table)} VALUES (${migration.version}, ${migration.name}, ${clock.now()})`,
    });
    applied.push(migration.version);
  }
  return applied;
}
