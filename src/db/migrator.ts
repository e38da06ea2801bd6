import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, Dialect } from './database.js';
import type { Clock } from '../core/clock.js';
import { packagePath } from '../core/runtime-paths.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS_ROOT = packagePath('migrations');
const FILE_PATTERN = /^(\d{3,})[-_]([a-z0-9-_]+)\.sql$/;

/** Reads `migrations/<dialect>/NNN-name.sql` in version order. */
export function loadMigrations(dialect: Dialect, root = MIGRATIONS_ROOT): Migration[] {
  const directory = join(root, dialect);
  const migrations = readdirSync(directory)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => {
      const match = FILE_PATTERN.exec(file);
      if (!match) throw new Error(`Migration file name "${file}" must look like 001-create-things.sql`);
      return { version: Number(match[1]), name: match[2]!, sql: readFileSync(join(directory, file), 'utf8') };
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`Migrations in ${directory} must be numbered 1, 2, 3… without gaps; found ${migration.version} at position ${index + 1}`);
    }
  });
  return migrations;
}

export interface MigrationResult {
  applied: Migration[];
  current: number;
}

const LOCK_KEY = 7_304_112_215; // arbitrary, constant: the advisory lock all Docwright processes agree on

/**
 * Applies pending migrations. Safe when several processes start at once: on PostgreSQL
 * they queue on one advisory lock, on SQLite on the database's write lock
 * (BEGIN IMMEDIATE); whoever comes second finds nothing left to do and succeeds.
 */
export async function migrate(database: Database, clock: Clock, migrations = loadMigrations(database.dialect)): Promise<MigrationResult> {
  return database.raw.dialect === 'postgres'
    ? migratePostgres(database.raw.pool, clock, migrations)
    : migrateSqlite(database.raw.connection, clock, migrations);
}

const CREATE_TABLE = `create table if not exists docwright_migrations (
  version integer primary key,
  name text not null,
  applied_at bigint not null
)`;

async function migratePostgres(pool: import('pg').Pool, clock: Clock, migrations: Migration[]): Promise<MigrationResult> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      await client.query(CREATE_TABLE);
      const { rows } = await client.query<{ version: number }>('select version from docwright_migrations');
      const done = new Set(rows.map((row) => Number(row.version)));
      const applied: Migration[] = [];
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await client.query('begin');
        try {
          await client.query(migration.sql);
          await client.query('insert into docwright_migrations (version, name, applied_at) values ($1, $2, $3)', [
            migration.version,
            migration.name,
            clock.now(),
          ]);
          await client.query('commit');
        } catch (error) {
          await client.query('rollback');
          throw new Error(`Migration ${migration.version}-${migration.name} failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration);
      }
      return { applied, current: Math.max(0, ...done, ...applied.map((m) => m.version)) };
    } finally {
      await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

function migrateSqlite(connection: import('better-sqlite3').Database, clock: Clock, migrations: Migration[]): MigrationResult {
  connection.exec('begin immediate');
  try {
    connection.exec(CREATE_TABLE);
    const done = new Set((connection.prepare('select version from docwright_migrations').all() as Array<{ version: number }>).map((row) => row.version));
    const insert = connection.prepare('insert into docwright_migrations (version, name, applied_at) values (?, ?, ?)');
    const applied: Migration[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      try {
        connection.exec(migration.sql);
      } catch (error) {
        throw new Error(`Migration ${migration.version}-${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      insert.run(migration.version, migration.name, clock.now());
      applied.push(migration);
    }
    connection.exec('commit');
    return { applied, current: Math.max(0, ...done, ...applied.map((m) => m.version)) };
  } catch (error) {
    if (connection.inTransaction) connection.exec('rollback');
    throw error;
  }
}
