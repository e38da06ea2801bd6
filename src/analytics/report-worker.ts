import BetterSqlite3 from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/** The fold state a snapshot sees: every report query of the snapshot agrees with it. */
export interface SnapshotState {
  folded: number;
  last: number;
  prunedBefore: number;
}

/** Read inside the transaction as its first statement, so it is what fixes the snapshot (WAL). */
export const SNAPSHOT_STATE = `select (select value from analytics_state where name = 'folded_seq') as folded,
  (select coalesce(max(seq), 0) from analytics_hits) as last,
  coalesce((select value from analytics_state where name = 'pruned_before'), 0) as "prunedBefore"`;

export type ReportWorkerRequest =
  | { id: number; kind: 'begin' }
  | { id: number; kind: 'all'; sql: string; parameters: readonly unknown[] }
  | { id: number; kind: 'end' }
  | { id: number; kind: 'close' };

export type ReportWorkerResponse =
  { id: number; ok: true; state?: SnapshotState; rows?: unknown[] } | { id: number; ok: false; message: string; sqliteCode?: string };

export interface ReportWorkerData {
  file: string;
}

/**
 * A report reader on a thread of its own (see sqlite-report-pool.ts): one read-only
 * connection, one read transaction at a time. Its queries are synchronous, so here they
 * block only this thread, never the event loop that serves requests.
 */
function serve(port: NonNullable<typeof parentPort>, file: string): void {
  let connection: BetterSqlite3.Database | null = null;
  const statements = new Map<string, BetterSqlite3.Statement>();
  const open = (): BetterSqlite3.Database => {
    if (connection !== null) return connection;
    connection = new BetterSqlite3(file, { fileMustExist: true });
    connection.pragma('busy_timeout = 15000');
    connection.pragma('query_only = ON');
    // SQLite's default 2 MB page cache is kept on purpose: it also bounds the sorter's
    // memory, and a report's sort of 1M unfolded hits took about 40 % less CPU merging
    // small runs than sorting in a 64 MB one.
    return connection;
  };
  const prepared = (sql: string): BetterSqlite3.Statement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = open().prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const handle = (request: ReportWorkerRequest): ReportWorkerResponse => {
    switch (request.kind) {
      case 'begin': {
        const database = open();
        if (database.inTransaction) database.exec('rollback');
        database.exec('begin');
        return { id: request.id, ok: true, state: prepared(SNAPSHOT_STATE).get() as SnapshotState };
      }
      case 'all':
        return { id: request.id, ok: true, rows: prepared(request.sql).all(...request.parameters) };
      case 'end':
        if (connection?.inTransaction) connection.exec('rollback');
        return { id: request.id, ok: true };
      case 'close':
        statements.clear();
        connection?.close();
        connection = null;
        return { id: request.id, ok: true };
    }
  };
  // Opened at once: the thread starts ahead of the first report (SqliteReportPool.warm).
  open();
  port.on('message', (request: ReportWorkerRequest) => {
    let response: ReportWorkerResponse;
    try {
      response = handle(request);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      response = {
        id: request.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        ...(typeof code === 'string' ? { sqliteCode: code } : {}),
      };
    }
    port.postMessage(response);
  });
}

if (parentPort !== null) serve(parentPort, (workerData as ReportWorkerData).file);
