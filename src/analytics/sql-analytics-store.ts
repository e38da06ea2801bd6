import type { Database } from '../db/database.js';
import { PostgresAnalyticsStore } from './postgres-analytics-store.js';
import { SqliteAnalyticsStore } from './sqlite-analytics-store.js';

/** The analytics store of the main database: its dialect's class, chosen in this one place. */
export function sqlAnalyticsStore(database: Database): SqliteAnalyticsStore | PostgresAnalyticsStore {
  return database.dialect === 'postgres' ? new PostgresAnalyticsStore(database) : new SqliteAnalyticsStore(database);
}
