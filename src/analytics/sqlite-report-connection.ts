import BetterSqlite3 from 'better-sqlite3';
import type { AnalyticsReader, UnfoldedHits } from './analytics-store.js';

interface FoldState {
  folded: number;
  last: number;
}

const FOLD_STATE = `select (select value from analytics_state where name = 'folded_seq') as folded,
  (select coalesce(max(seq), 0) from analytics_hits) as last`;

/**
 * Reports on SQLite read on a connection of their own, each inside one read transaction:
 * WAL gives it the snapshot of its first read, so a fold committing on the main
 * connection meanwhile is invisible to it, and the folded mark it reads matches the
 * rollups it reads. The main connection is free for ingestion and folds in between.
 * Reports take this connection one at a time. An in-memory database has no second
 * connection: there the report holds the main connection instead.
 */
export class SqliteReportConnection {
  private connection: BetterSqlite3.Database | null = null;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly exclusive: <T>(work: () => T) => Promise<T>,
    private readonly main: BetterSqlite3.Database,
  ) {}

  read<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    const run = this.chain.then(() => (this.file === ':memory:' ? this.readOnMain(work) : this.readInSnapshot(work)));
    // The chain only orders reports; a failed one must not fail the next.
    this.chain = run.catch(() => {});
    return run;
  }

  close(): void {
    if (this.connection?.open) this.connection.close();
    this.connection = null;
    this.statements.clear();
  }

  private async readInSnapshot<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    const connection = this.open();
    connection.exec('begin');
    try {
      // The first read fixes the snapshot: the mark and everything after it agree.
      const state = this.prepared(connection, FOLD_STATE).get() as FoldState;
      const result = await work(this.reader(state, (sql, parameters) => Promise.resolve(this.prepared(connection, sql).all(...parameters))));
      connection.exec('commit');
      return result;
    } catch (error) {
      if (connection.inTransaction) connection.exec('rollback');
      throw error;
    }
  }

  /**
   * No second connection: each statement takes the main connection in turn (other work
   * of the report, such as name look-ups, needs it too). Fold steps queue with reports
   * (`besideReports`), so none commits between a report's reads.
   */
  private async readOnMain<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    const state = await this.exclusive(() => this.main.prepare(FOLD_STATE).get() as FoldState);
    return work(this.reader(state, (sql, parameters) => this.exclusive(() => this.main.prepare(sql).all(...parameters))));
  }

  /** Runs a fold step: at once with a connection of its own, in turn with reports on an in-memory database. */
  besideReports<T>(step: () => Promise<T>): Promise<T> {
    if (this.file !== ':memory:') return step();
    const run = this.chain.then(step);
    this.chain = run.catch(() => {});
    return run;
  }

  private reader(state: FoldState, all: (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>): AnalyticsReader {
    const unfolded: UnfoldedHits | null = state.last > state.folded ? { condition: 'seq > ?', parameters: [state.folded] } : null;
    return { dialect: 'sqlite', unfolded, select: async <Row>(sql: string, parameters: readonly unknown[]) => (await all(sql, parameters)) as Row[] };
  }

  private open(): BetterSqlite3.Database {
    if (this.connection?.open) return this.connection;
    const connection = new BetterSqlite3(this.file);
    connection.pragma('busy_timeout = 15000');
    connection.pragma('query_only = ON');
    // SQLite's default 2 MB page cache is kept on purpose: it also bounds the sorter's
    // memory, and a report's sort of 1M unfolded hits took about 40 % less CPU merging
    // small runs than sorting in a 64 MB one.
    this.connection = connection;
    this.statements.clear();
    return connection;
  }

  private prepared(connection: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
