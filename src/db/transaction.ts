import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './database.js';
import type { DatabaseSchema } from './schema.js';

export type Executor = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

/**
 * Runs `work` in one write transaction. On SQLite it starts with BEGIN IMMEDIATE, taking
 * the write lock up front: a deferred transaction that reads and then writes can fail
 * with SQLITE_BUSY when another process wrote in between, and busy_timeout cannot help.
 * On PostgreSQL it is an ordinary READ COMMITTED transaction; callers lock the rows they
 * decide on (see `lockRow`).
 */
export async function writeTransaction<T>(database: Database, work: (executor: Executor) => Promise<T>): Promise<T> {
  if (database.dialect === 'postgres') return database.db.transaction().execute(work);
  return database.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
}

/**
 * Serialises transactions that decide on the same key (a project's rate budget, a job's
 * state). PostgreSQL: a transaction-scoped advisory lock. SQLite: a no-op, because
 * BEGIN IMMEDIATE already serialises every writer.
 */
export async function lockKey(database: Database, executor: Executor, key: string): Promise<void> {
  if (database.dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(executor);
}
