import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import type { Database } from './database.js';

/** A one-row read compiled once; `first` runs it with new parameter values. */
export interface PreparedRead<Row> {
  first(parameters: readonly unknown[]): Promise<Row | undefined>;
}

/**
 * For the hottest reads (the poll route), where building the query through Kysely and
 * looking up its statement cost more than running it. The query is built once, with
 * Kysely, by the caller; its parameters are then replaced positionally on every call.
 *
 * SQLite: a statement prepared once on the query-only reader connection, so it sees only
 * committed data and never queues behind a write transaction. PostgreSQL: a named
 * prepared statement, which each pooled connection parses once.
 */
export function prepareRead<Row>(database: Database, name: string, query: CompiledQuery): PreparedRead<Row> {
  const { raw } = database;
  if (raw.dialect === 'postgres') {
    const statementName = `docwright_${name}`;
    return {
      async first(parameters) {
        const result = await raw.pool.query({ name: statementName, text: query.sql, values: [...parameters] });
        return result.rows[0] as Row | undefined;
      },
    };
  }
  let statement: BetterSqlite3.Statement | null = null;
  return {
    async first(parameters) {
      const reader = raw.reader();
      // `:memory:` has no second connection: go through Kysely, which serializes with writes.
      if (reader === null) return (await database.db.executeQuery<Row>({ ...query, parameters })).rows[0];
      statement ??= reader.prepare(query.sql);
      return statement.get(...parameters) as Row | undefined;
    },
  };
}
