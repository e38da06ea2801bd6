/**
 * Experiment, loaded into the server with `--import`: keeps one prepared statement per SQL
 * text and connection, as a statement cache in src/db/sqlite-database.ts would. Kysely's
 * SQLite driver calls better-sqlite3's prepare() for every query; this measures what that costs.
 */
import BetterSqlite3 from 'better-sqlite3';

type Prepare = (this: object, sql: string) => unknown;
const prototype = BetterSqlite3.prototype as unknown as { prepare: Prepare };
const original = prototype.prepare;
const caches = new WeakMap<object, Map<string, unknown>>();

prototype.prepare = function prepareOnce(this: object, sql: string): unknown {
  let cache = caches.get(this);
  if (cache === undefined) caches.set(this, (cache = new Map<string, unknown>()));
  let statement = cache.get(sql);
  if (statement === undefined) cache.set(sql, (statement = original.call(this, sql)));
  return statement;
};
