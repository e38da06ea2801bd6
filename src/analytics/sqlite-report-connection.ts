import type BetterSqlite3 from 'better-sqlite3';
import type { AnalyticsReader, UnfoldedHits } from './analytics-store.js';
import { SNAPSHOT_STATE, type SnapshotState } from './report-worker.js';
import { SqliteReportPool } from './sqlite-report-pool.js';

/**
 * Where reports on SQLite read. On a file: on the report threads (sqlite-report-pool.ts),
 * inside read transactions that share one WAL snapshot, so a fold committing on the main
 * connection meanwhile is invisible to them, the folded mark they read matches the
 * rollups they read, and neither the event loop nor the main connection waits for the
 * report's queries. An in-memory database has no second connection: there the report
 * holds the main connection, one statement at a time.
 */
export class SqliteReportConnection {
  /** Null for an in-memory database. */
  readonly pool: SqliteReportPool | null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    file: string,
    private readonly exclusive: <T>(work: () => T) => Promise<T>,
    hold: <T>(work: () => Promise<T>) => Promise<T>,
    private readonly main: BetterSqlite3.Database,
  ) {
    this.pool = file === ':memory:' ? null : new SqliteReportPool(file, hold);
  }

  read<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    if (this.pool !== null) return this.pool.read((session) => work(reader(session.state, session.all)));
    const run = this.chain.then(() => this.readOnMain(work));
    // The chain only orders reports; a failed one must not fail the next.
    this.chain = run.catch(() => {});
    return run;
  }

  /** Waits for running reports, then stops the report threads; a later report starts them again. */
  async close(): Promise<void> {
    await this.chain;
    await this.pool?.close();
  }

  /**
   * No second connection: each statement takes the main connection in turn (other work
   * of the report, such as name look-ups, needs it too). Fold steps queue with reports
   * (`besideReports`), so none commits between a report's reads.
   */
  private async readOnMain<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    const state = await this.exclusive(() => this.main.prepare(SNAPSHOT_STATE).get() as SnapshotState);
    return work(reader(state, (sql, parameters) => this.exclusive(() => this.main.prepare(sql).all(...parameters))));
  }

  /**
   * Runs a fold step. On a file, after the reports queued so far: they read their own
   * snapshot and never wait for a fold, but a step running beside them would take a core
   * from their threads (two on the machines the targets are set for) to make only later
   * reports cheaper. A step waits for those reports only, not for ones that come later,
   * so steady reports slow the fold down but never stop it. On an in-memory database, in
   * turn with reports (they share the main connection).
   */
  async besideReports<T>(step: () => Promise<T>): Promise<T> {
    if (this.pool !== null) {
      await this.pool.settled();
      return step();
    }
    const run = this.chain.then(step);
    this.chain = run.catch(() => {});
    return run;
  }
}

function reader(state: SnapshotState, all: (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>): AnalyticsReader {
  const unfolded: UnfoldedHits | null = state.last > state.folded ? { condition: 'seq > ?', parameters: [state.folded] } : null;
  return { dialect: 'sqlite', unfolded, select: async <Row>(sql: string, parameters: readonly unknown[]) => (await all(sql, parameters)) as Row[] };
}
