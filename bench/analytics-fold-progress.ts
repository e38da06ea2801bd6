/**
 * How far the server's background fold has got, read from outside the server: the hits
 * not folded yet (SQLite: above the folded mark; PostgreSQL: in pending batches;
 * ClickHouse: the days with hits written after the site's latest visitor-cell build,
 * counted from its small table of day stamps). The suite uses it to time the fold's catch-up after a load and to time
 * queries once the rollups hold everything.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { CLICKHOUSE_SPOOL_FILE } from '../src/config/clickhouse-settings.js';

export interface FoldProgress {
  /** Hits not folded yet; on ClickHouse, (site, day) pairs with hits newer than the site's visitor cells. */
  pendingHits(): Promise<number>;
  /** ClickHouse: hits accepted but still in the server's spool, not yet in ClickHouse (else 0). */
  spooledHits(): number;
  /** Polls until nothing is pending; resolves with the seconds waited, or null after `limitSeconds`. */
  waitUntilFolded(limitSeconds: number): Promise<number | null>;
  close(): Promise<void>;
}

export function foldProgress(server: { dataDir: string; databaseUrl: string | undefined; analyticsUrl?: string | undefined }): FoldProgress {
  let pendingHits: () => Promise<number>;
  let spooledHits = (): number => 0;
  let close: () => Promise<void>;
  if (server.analyticsUrl !== undefined) {
    // Read-only and brief: the server's drains keep writing the file meanwhile (WAL).
    const spool = new BetterSqlite3(join(server.dataDir, CLICKHOUSE_SPOOL_FILE), { readonly: true });
    spool.pragma('busy_timeout = 15000');
    const spooled = spool.prepare('select coalesce(sum(hits), 0) as hits from spooled_hits');
    spooledHits = () => (spooled.get() as { hits: number }).hits;
    const url = new URL(server.analyticsUrl);
    const database = url.pathname.slice(1);
    // Days a drain wrote hits of after the site's latest visitor-cell build (all, before a first one).
    const query = `SELECT count() FROM (SELECT site, day, maxMerge(written) AS written FROM ${database}.analytics_hit_day_writes GROUP BY site, day)
      GLOBAL ANY LEFT JOIN (SELECT site, max(mark) AS mark FROM ${database}.analytics_visitor_cell_builds GROUP BY site) USING (site)
      WHERE written >= mark FORMAT TabSeparated`;
    pendingHits = async () => {
      const response = await fetch(url.origin, { method: 'POST', body: query });
      if (!response.ok) throw new Error(`ClickHouse answered ${response.status}: ${await response.text()}`);
      return Number((await response.text()).trim());
    };
    close = () => {
      spool.close();
      return Promise.resolve();
    };
  } else if (server.databaseUrl === undefined) {
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
    spooledHits,
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
