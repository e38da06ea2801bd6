import { join } from 'node:path';
import type { Database } from './database.js';
import { openPostgresDatabase } from './postgres-database.js';
import { openSqliteDatabase } from './sqlite-database.js';

export const SQLITE_FILE_NAME = 'docwright.sqlite';

/** PostgreSQL when a URL is configured, else SQLite in the data dir. */
export function openDatabase(options: { databaseUrl: string | undefined; dataDir: string }): Database {
  if (options.databaseUrl) return openPostgresDatabase(options.databaseUrl);
  return openSqliteDatabase(join(options.dataDir, SQLITE_FILE_NAME));
}
