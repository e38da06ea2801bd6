import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { PRIVATE_FILE_MODE, ensurePrivateDirectory, ensurePrivateFile, narrowIfPresent } from '../core/private-files.js';
import type { Database } from './database.js';
import type { DatabaseSchema } from './schema.js';

/**
 * SQLite in WAL mode: readers never block the writer, and several processes on one
 * machine may share the file. busy_timeout makes a second writer wait instead of failing.
 */
export function openSqliteDatabase(file: string): Database {
  const connection = openSqliteConnection(file);
  connection.pragma('foreign_keys = ON');
  // Kysely prepares every query afresh; the SQL texts are few, so reusing their prepared
  // statements saves a parse per query (a third of a cheap request's CPU).
  const statements = new Map<string, BetterSqlite3.Statement>();
  const cachingConnection = {
    close: () => connection.close(),
    prepare: (text: string) => {
      let statement = statements.get(text);
      if (!statement) {
        statement = connection.prepare(text);
        if (statements.size >= 500) statements.clear();
        statements.set(text, statement);
      }
      return statement;
    },
  };
  const db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: cachingConnection }) });
  let reader: BetterSqlite3.Database | null = null;
  const openReader = (): BetterSqlite3.Database | null => {
    if (file === ':memory:' || !connection.open) return null;
    if (reader === null) {
      reader = new BetterSqlite3(file);
      reader.pragma('busy_timeout = 15000');
      reader.pragma('query_only = ON');
    }
    return reader;
  };
  return {
    dialect: 'sqlite',
    db,
    raw: { dialect: 'sqlite', connection, file, reader: openReader },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      // Kysely only closes a driver it has used; the migrator may have used the connection alone.
      await db.destroy();
      if (connection.open) connection.close();
      const opened = reader;
      if (opened?.open) opened.close();
    },
  };
}

/**
 * A better-sqlite3 connection to `file` (created 0600 with its directory) in WAL mode with
 * synchronous = NORMAL and a 15 s busy timeout: the settings of the main database, for the
 * other SQLite files a process keeps (the ClickHouse ingest spool).
 */
export function openSqliteConnection(file: string): BetterSqlite3.Database {
  if (file !== ':memory:') prepareDatabaseFile(file);
  const connection = new BetterSqlite3(file);
  // busy_timeout first: switching to WAL takes a lock another starting process may hold.
  connection.pragma('busy_timeout = 15000');
  switchToWal(connection);
  connection.pragma('synchronous = NORMAL');
  return connection;
}

/**
 * The database file exists, as 0600, before SQLite opens it: SQLite gives the -wal and -shm
 * files it creates the database file's permissions, and its own default is 0644. Files
 * left wider by an older version are narrowed (a running old process may have made them).
 */
function prepareDatabaseFile(file: string): void {
  ensurePrivateDirectory(dirname(file), { narrow: false });
  ensurePrivateFile(file);
  for (const companion of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) narrowIfPresent(companion, PRIVATE_FILE_MODE);
}

const WAL_SWITCH_ATTEMPTS = 50;
const WAL_SWITCH_PAUSE_MS = 20;

/**
 * `journal_mode = WAL` on a brand-new file that another process is switching at the same
 * moment can fail at once with SQLITE_BUSY, busy_timeout or not: both hold a shared lock and
 * want an exclusive one, and SQLite refuses one of them rather than let them wait on each
 * other (2 of 300 concurrent opens of a new file here; `docwright migrate` from two
 * processes failed so in CI). The loser tries again after a pause, by which time the file
 * is in WAL mode and the switch is a no-op. Synchronous because opening is (better-sqlite3),
 * so p-retry, which is asynchronous, cannot run it; it happens once per process, at start.
 */
function switchToWal(connection: BetterSqlite3.Database): void {
  for (let attempt = 1; ; attempt += 1) {
    try {
      connection.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || attempt >= WAL_SWITCH_ATTEMPTS) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAL_SWITCH_PAUSE_MS * (0.5 + Math.random()));
    }
  }
}
