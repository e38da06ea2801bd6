/**
 * How far the server's background fold has got, read from outside the server: the hits
 * not folded yet (SQLite: above the folded mark; PostgreSQL: in pending batches). The
 * suite uses it to time the fold's catch-up after a load and to time queries once the
 * rollups hold everything.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

export interface FoldProgress {
  pendingHits(): Promise<number>;
  /** Polls until nothing is pending; resolves with the seconds waited, or null after `limitSeconds`. */
  waitUntilFolded(limitSeconds: number): Promise<number | null>;
  close(): Promise<void>;
}

export function foldProgress(server: { dataDir: string; databaseUrl: string | undefined }): FoldProgress {
  let pendingHits: () => Promise<number>;
  let close: () => Promise<void>;
  if (server.databaseUrl === undefined) {
    const connection = new BetterSqlite3(join(server.dataDir, 'docwright.sqlite'), { readonly: true });
    connection.pragma('busy_timeout = 15000');
    const statement = connection.prepare(
      "select (select coalesce(max(seq), 0) from analytics_hits) - (select value from analytics_state where name = 'folded_seq') as pending",
    );
    pendingHits = () => Promise.resolve((statement.get() as { pending: number }).pending);
    close = () => {
      connection.close();
      return Promise.resolve();
    };
  } else {
    const pool = new pg.Pool({ connectionString: server.databaseUrl, max: 1 });
    pendingHits = async () => Number((await pool.query<{ n: string }>('select coalesce(sum(hits), 0) as n from analytics_ingest_batches')).rows[0]!.n);
    close = () => pool.end();
  }
  return {
    pendingHits,
    async waitUntilFolded(limitSeconds) {
      const started = performance.now();
      for (;;) {
        if ((await pendingHits()) === 0) return (performance.now() - started) / 1000;
        if (performance.now() - started > limitSeconds * 1000) return null;
        await sleep(250);
      }
    },
    close,
  };
}
