import type { Kysely } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { DatabaseSchema } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * The one database interface. Feature code queries through `db` (Kysely), which renders
 * each query for the active dialect; the raw driver is exposed only to the migrator,
 * the queue's notification channel and bulk paths that need dialect-specific speed.
 */
export interface Database {
  readonly dialect: Dialect;
  readonly db: Kysely<DatabaseSchema>;
  readonly raw: RawConnection;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type RawConnection =
  | {
      dialect: 'sqlite';
      connection: BetterSqlite3.Database;
      file: string;
      /**
       * A second, query-only connection to the same file (null for `:memory:`), opened on
       * first use. WAL lets it read the last committed state while the main connection is
       * inside a transaction, which the main connection itself could not do.
       */
      reader(): BetterSqlite3.Database | null;
    }
  | { dialect: 'postgres'; pool: pg.Pool; url: string };
