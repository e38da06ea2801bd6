import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import type { DatabaseSchema } from './schema.js';

const { INT8, NUMERIC } = pg.types.builtins;

/** bigint columns hold millisecond times and counts, all far below 2^53. */
const types: pg.CustomTypesConfig = {
  getTypeParser(oid, format) {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format) as unknown;
  },
};

export function openPostgresDatabase(url: string, options: { maxConnections?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, types });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor one that is checked out between two queries (the pool listens only to idle ones):
  // node-postgres would emit the error with no listener, which throws. The client is then
  // marked unusable, its next query fails (the request answers 503), and the pool drops it
  // on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    db,
    raw: { dialect: 'postgres', pool, url },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
      // Kysely only ends a pool it has used; the migrator may have used the pool alone.
      if (!pool.ended && !pool.ending) await pool.end();
    },
  };
}
