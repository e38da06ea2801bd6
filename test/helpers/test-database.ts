import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { randomBase62 } from '../../src/core/ids.js';
import type { Database, Dialect } from '../../src/db/database.js';
import { openPostgresDatabase } from '../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { loadMigrations, migrate } from '../../src/db/migrator.js';
import { systemClock } from '../../src/core/clock.js';

/** Every storage test runs once per backend. */
export const BACKENDS: readonly Dialect[] = ['sqlite', 'postgres'];

/**
 * Where analytics live: a primary database, or ClickHouse (DOCWRIGHT_ANALYTICS_URL) with
 * projects, keys and jobs on SQLite. Every analytics suite runs once per entry.
 */
export type AnalyticsBackend = Dialect | 'clickhouse';
export const ANALYTICS_BACKENDS: readonly AnalyticsBackend[] = ['sqlite', 'postgres', 'clickhouse'];

/** The primary database under an analytics backend. */
export const primaryDialect = (backend: AnalyticsBackend): Dialect => (backend === 'clickhouse' ? 'sqlite' : backend);

/**
 * A ClickHouse database of its own in the run's clickhouse-server (created by the first
 * migration), as the settings that select it, and a function that drops it.
 */
export function createClickHouseDatabase(): { environment: Record<string, string>; drop(): Promise<void> } {
  const server = inject('clickhouseUrl');
  const name = `test_${randomBase62(12).toLowerCase()}`;
  return {
    environment: { DOCWRIGHT_ANALYTICS_URL: `${server}/${name}` },
    async drop() {
      const response = await fetch(server, { method: 'POST', body: `DROP DATABASE IF EXISTS ${name}` });
      if (!response.ok) throw new Error(`could not drop ClickHouse database ${name}: ${await response.text()}`);
    },
  };
}

export interface TestDatabase {
  database: Database;
  dialect: Dialect;
  /** postgres:// URL of this test's own database, or the SQLite file path. */
  location: string;
  dataDir: string;
  close(): Promise<void>;
}

/** Creates an empty database of its own in the run's PostgreSQL and returns its URL. */
export async function createEmptyPostgresDatabase(): Promise<string> {
  const adminUrl = inject('postgresUrl');
  const name = `test_${randomBase62(12).toLowerCase()}`;
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh, migrated database (and data dir) for one test. */
export async function openTestDatabase(dialect: Dialect, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'docwright-test-'));
  let database: Database;
  let location: string;
  if (dialect === 'postgres') {
    location = await createEmptyPostgresDatabase();
    database = openPostgresDatabase(location, { maxConnections: 5 });
  } else {
    location = join(dataDir, 'docwright.sqlite');
    database = openSqliteDatabase(location);
  }
  if (options.migrate !== false) await migrate(database, systemClock);
  return {
    database,
    dialect,
    location,
    dataDir,
    async close() {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Applies the migrations before the one named `name` (a migration test's starting point); throws when there is none of that name. */
export async function migrateBefore(database: Database, name: string): Promise<void> {
  const all = loadMigrations(database.dialect);
  const target = all.find((migration) => migration.name === name);
  if (target === undefined) throw new Error(`no migration is named ${name}`);
  await migrate(
    database,
    systemClock,
    all.filter((migration) => migration.version < target.version),
  );
}
