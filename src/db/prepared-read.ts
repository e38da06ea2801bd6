import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import type { Database } from './database.js';

/** A one-row read compiled once; `first` runs it with new parameter values. */
export interface PreparedRead<Row> {
  /**
   * The row, or undefined. The same object comes back while the database has not changed,
   * so callers must treat it as read-only (and may memoize what they derive from it).
   */
  first(parameters: readonly string[]): Promise<Row | undefined>;
}

/** Rows remembered per SQLite read; beyond it the memory starts afresh. */
const MAX_REMEMBERED_ROWS = 1_000;

/**
 * For the hottest SQLite reads (the poll route), where building the query through Kysely
 * and looking up its statement cost more than running it. The query is built once, with
 * Kysely, by the caller; its parameters are then replaced positionally on every call.
 *
 * The statement is prepared once on the query-only reader connection, so it sees only
 * committed data and never queues behind a write transaction. The last answer per
 * parameter list is remembered together with the connection's `PRAGMA data_version`,
 * which changes whenever any other connection (this process's writer, another process)
 * commits: while it stands still, the remembered row is exactly what the query would
 * return, for about half the cost of running it. (PostgreSQL's counterpart, where every
 * read is a round trip, is `createBatchedRead`.)
 */
export function prepareSqliteRead<Row>(database: Database, query: CompiledQuery): PreparedRead<Row> {
  const { raw } = database;
  if (raw.dialect !== 'sqlite') throw new Error('prepareSqliteRead needs a SQLite database');
  let statements: { select: BetterSqlite3.Statement; dataVersion: BetterSqlite3.Statement } | null = null;
  const remembered = new Map<string, { version: number; row: Row | undefined }>();
  return {
    async first(parameters) {
      const reader = raw.reader();
      // `:memory:` has no second connection: go through Kysely, which serializes with writes.
      if (reader === null) return (await database.db.executeQuery<Row>({ ...query, parameters })).rows[0];
      statements ??= { select: reader.prepare(query.sql), dataVersion: reader.prepare('pragma data_version').pluck() };
      const version = statements.dataVersion.get() as number;
      const key = parameters.join('\u0000');
      const known = remembered.get(key);
      if (known?.version === version) return known.row;
      const row = statements.select.get(...parameters) as Row | undefined;
      if (remembered.size >= MAX_REMEMBERED_ROWS) remembered.clear();
      remembered.set(key, { version, row });
      return row;
    },
  };
}
