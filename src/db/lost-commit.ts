import { sql } from 'kysely';
import type { Database } from './database.js';
import { databaseTrouble } from './database-unavailable.js';
import { writeTransaction, type Executor } from './transaction.js';

/** How long to wait for the lost transaction's lock before giving up (the answer stays the 503). */
const LOCK_TIMEOUT = '5s';

/**
 * After a PostgreSQL write transaction failed because its connection went, whether it
 * committed after all. The connection can drop after the server committed and before the
 * client heard so; answering 503 then would tell the caller that a job which exists does
 * not. So ask again, on another connection, under the lock the lost transaction held
 * (`lock`): the server keeps it until that transaction has ended, committed or rolled back,
 * so what `find` reads then is final. Returns what `find` found; rethrows `error` when it
 * found nothing, when the error was not a lost connection, on SQLite (whose commits do not
 * travel over a connection), or when the database cannot be asked either (the outcome is
 * then unknown, and the 503 stands: an Idempotency-Key makes the retry safe).
 */
export async function settleLostCommit<T>(
  database: Database,
  error: unknown,
  lock: (executor: Executor) => Promise<void>,
  find: (executor: Executor) => Promise<T | undefined>,
): Promise<T> {
  if (database.dialect !== 'postgres' || databaseTrouble(error) !== 'database_unavailable') throw error;
  let found: T | undefined;
  try {
    found = await writeTransaction(database, async (executor) => {
      await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(executor);
      await lock(executor);
      return find(executor);
    });
  } catch {
    throw error;
  }
  if (found === undefined) throw error;
  return found;
}
