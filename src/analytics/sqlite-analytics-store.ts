import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../db/database.js';
import type { AnalyticsReader, AnalyticsStore, BatchNonces, HitBatch, InsertHitsResult, PruneCounts, SqlRunner } from './analytics-store.js';
import { relabelReplays } from './relabel-replays.js';
import { SqliteNonceClaimer } from './verification/nonce-ledger.js';
import { SqliteHitWriter } from './sqlite-hit-writer.js';
import { SqliteReportConnection } from './sqlite-report-connection.js';
import { foldStatements } from './fold-statements.js';
import { pruneStatements } from './prune-statements.js';
import {
  DELETE_BATCH_ROWS,
  DELETE_BEACON_SENDERS,
  DELETE_SITE,
  NOTHING_DELETED,
  SITE_TABLES,
  deleteSiteBatch,
  type DeletedProjectData,
} from './project-data-deletion.js';

type Statement = BetterSqlite3.Statement;

/**
 * SQLite storage. Each unit of work runs synchronously on the shared connection while
 * holding Kysely's connection lock, so no other query can interleave with an open
 * transaction, and the hot loops use prepared statements straight on the driver.
 */
export class SqliteAnalyticsStore implements AnalyticsStore {
  readonly dialect = 'sqlite' as const;
  private readonly connection: BetterSqlite3.Database;
  private readonly statements = new Map<string, Statement>();
  private readonly foldSql = foldStatements('sqlite');
  private readonly nonces: SqliteNonceClaimer;
  /** Prepared on the first insert: the table exists only once migrations have run. */
  private hitWriter: SqliteHitWriter | undefined;
  /** Where reports read (public for the report tests' fault seams). */
  readonly reports: SqliteReportConnection;

  constructor(private readonly database: Database) {
    if (database.raw.dialect !== 'sqlite') throw new Error('SqliteAnalyticsStore needs a SQLite database');
    this.connection = database.raw.connection;
    this.nonces = new SqliteNonceClaimer(this.connection);
    this.reports = new SqliteReportConnection(
      database.raw.file,
      (work) => this.exclusive(work),
      // Holds the main connection across awaits: no write of this process commits meanwhile.
      (work) => this.database.db.connection().execute(() => work()),
      this.connection,
    );
  }

  private prepared(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` with the connection to itself; `work` must not await. */
  private exclusive<T>(work: () => T): Promise<T> {
    return this.database.db.connection().execute(async () => work());
  }

  private writeTransaction<T>(work: () => T): Promise<T> {
    return this.exclusive(() => {
      this.connection.exec('begin immediate');
      try {
        const result = work();
        this.connection.exec('commit');
        return result;
      } catch (error) {
        if (this.connection.inTransaction) this.connection.exec('rollback');
        throw error;
      }
    });
  }

  rebuildTransaction<T>(work: (runner: SqlRunner) => Promise<T>): Promise<T> {
    const runner: SqlRunner = {
      dialect: 'sqlite',
      all: <Row>(sql: string, parameters: readonly unknown[] = []) => Promise.resolve(this.prepared(sql).all(...parameters) as Row[]),
      run: (sql: string, parameters: readonly unknown[] = []) => Promise.resolve(this.prepared(sql).run(...parameters).changes),
    };
    return this.reports.besideReports(() => this.heldTransaction(() => work(runner)));
  }

  /** A write transaction across awaits: Kysely's connection lock stays held, so nothing else runs on the connection meanwhile. */
  private heldTransaction<T>(work: () => Promise<T>): Promise<T> {
    return this.database.db.connection().execute(async () => {
      this.connection.exec('begin immediate');
      try {
        const result = await work();
        this.connection.exec('commit');
        return result;
      } catch (error) {
        if (this.connection.inTransaction) this.connection.exec('rollback');
        throw error;
      }
    });
  }

  async siteOf(projectId: string): Promise<number | null> {
    const row = await this.exclusive(
      () => this.prepared('select site from analytics_sites where project_id = ?').get(projectId) as { site: number } | undefined,
    );
    return row?.site ?? null;
  }

  async ensureSite(projectId: string): Promise<number> {
    return this.writeTransaction(() => {
      this.prepared('insert or ignore into analytics_sites (project_id) values (?)').run(projectId);
      return (this.prepared('select site from analytics_sites where project_id = ?').get(projectId) as { site: number }).site;
    });
  }

  async ensureDimensions(site: number, kind: number, names: readonly string[]): Promise<Map<string, number>> {
    return this.writeTransaction(() => {
      const insert = this.prepared('insert or ignore into analytics_dimensions (site, kind, name) values (?, ?, ?)');
      const select = this.prepared('select id from analytics_dimensions where site = ? and kind = ? and name = ?');
      const ids = new Map<string, number>();
      for (const name of names) {
        insert.run(site, kind, name);
        ids.set(name, (select.get(site, kind, name) as { id: number }).id);
      }
      return ids;
    });
  }

  async ensureUserAgents(userAgents: readonly string[]): Promise<Map<string, number>> {
    return this.writeTransaction(() => {
      const insert = this.prepared('insert or ignore into analytics_user_agents (user_agent) values (?)');
      const select = this.prepared('select id from analytics_user_agents where user_agent = ?');
      const ids = new Map<string, number>();
      for (const userAgent of userAgents) {
        insert.run(userAgent);
        ids.set(userAgent, (select.get(userAgent) as { id: number }).id);
      }
      return ids;
    });
  }

  async ensureClassifierVersion(version: string): Promise<number> {
    return this.writeTransaction(() => {
      this.prepared('insert or ignore into analytics_classifier_versions (version) values (?)').run(version);
      return (this.prepared('select id from analytics_classifier_versions where version = ?').get(version) as { id: number }).id;
    });
  }

  async insertHits(batch: HitBatch): Promise<InsertHitsResult> {
    if (batch.count === 0) return { stored: 0, duplicates: 0 };
    this.reports.pool?.warm();
    return this.writeTransaction(() => {
      // The claim commits with the hits or rolls back with them (docs/classification.md, "Replay").
      if (batch.nonces !== undefined) batch = relabelReplays(batch, this.nonces.claim(batch.nonces.claims, batch.nonces.nowSeconds));
      this.hitWriter ??= new SqliteHitWriter(this.connection);
      return this.hitWriter.write(batch);
    });
  }

  /**
   * For hits kept elsewhere (ClickHouse; only batches carrying signed nonces come here).
   * Unlike PostgreSQL's, the claim commits before `work` runs, and what it took is given back
   * (deleted) if `work` throws. SQLite has one writer for the whole file: a transaction held
   * across `work` (a ClickHouse insert, a network round trip of 50 ms to a second) would make
   * every other write wait that long, and in another process sharing the file that wait is
   * better-sqlite3's synchronous busy wait, a stalled event loop (two stores of one process on
   * two connections deadlocked until busy_timeout). The price: a process killed between the
   * claim and the end of `work` leaves its nonces claimed with no hits, so a retry of those
   * events *without* an event id is taken for a replay (docs/analytics.md, "ClickHouse").
   *
   * Only claims without an owner (hits without an event id) are given back. A claim owned by
   * an event stays: a retry of that event is never its replay (same owner), so keeping it
   * costs nothing, while deleting it would race a retry that is already running in another
   * request. That retry's claim found this row (same owner, not a replay) and stored its hits
   * relying on it; the release would leave them stored with no claim, and a real replay by
   * another event afterwards would count as verified.
   */
  async claimAround<T>(nonces: BatchNonces, work: (replays: ReadonlySet<number>) => Promise<T>): Promise<T> {
    const { replays, taken } = await this.writeTransaction(() => this.nonces.claimTaking(nonces.claims, nonces.nowSeconds));
    try {
      return await work(replays);
    } catch (error) {
      const releasable = taken.filter((claim) => claim.owner === '');
      // Best effort: if the release fails too, the claims stay, as after a crash.
      if (releasable.length > 0) await this.writeTransaction(() => this.nonces.release(releasable)).catch(() => undefined);
      throw error;
    }
  }

  async fold(chunkSize: number, betweenChunks?: () => Promise<boolean>): Promise<number> {
    let folded = 0;
    for (;;) {
      const chunk = await this.reports.besideReports(() => this.writeTransaction(() => this.foldChunk(chunkSize)));
      if (chunk === null) return folded;
      folded += chunk;
      if (betweenChunks && !(await betweenChunks())) return folded;
    }
  }

  /** One transaction: the next `chunkSize` sequence numbers after the folded mark; null when there were none. */
  private foldChunk(chunkSize: number): number | null {
    const from = (this.prepared("select value from analytics_state where name = 'folded_seq'").get() as { value: number }).value;
    const last = (this.prepared('select coalesce(max(seq), 0) as seq from analytics_hits').get() as { seq: number }).seq;
    if (last <= from) return null;
    const to = Math.min(last, from + chunkSize);
    const statements = this.foldSql;
    for (const sql of statements.setup) this.connection.exec(sql);
    for (const sql of statements.collectKeys) this.prepared(sql).run(from, to);
    this.prepared(statements.describeKeys).run();
    this.prepared(statements.countLoneVisitors).run();
    this.prepared(statements.countVisitors).run();
    this.prepared(statements.storeVisitDays).run();
    this.prepared(statements.countHits).run(from, to);
    this.prepared(statements.countPageViews).run(from, to);
    this.prepared(statements.raiseMaxDays).run();
    this.prepared("update analytics_state set value = ? where name = 'folded_seq'").run(to);
    return (this.prepared('select count(*) as n from analytics_hits where seq > ? and seq <= ?').get(from, to) as { n: number }).n;
  }

  async pendingHits(): Promise<number> {
    return this.exclusive(() => {
      const from = (this.prepared("select value from analytics_state where name = 'folded_seq'").get() as { value: number }).value;
      return (this.prepared('select count(*) as n from analytics_hits where seq > ?').get(from) as { n: number }).n;
    });
  }

  read<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    return this.reports.read(work);
  }

  async close(): Promise<void> {
    // Reports still running finish first; the report threads start again if one comes later.
    await this.reports.close();
  }

  async select<Row>(sql: string, parameters: readonly unknown[]): Promise<Row[]> {
    return this.exclusive(() => this.prepared(sql).all(...parameters) as Row[]);
  }

  async prune(before: number): Promise<PruneCounts> {
    const statements = pruneStatements('sqlite');
    const horizonDay = statements.dayOf(before);
    // The watermark first: from here on no hit older than `before` is accepted.
    const { hits, eventIds } = await this.writeTransaction(() => {
      this.prepared(statements.raiseWatermark).run(before);
      return { hits: this.prepared(statements.hits).run(before).changes, eventIds: this.prepared(statements.eventIds).run(before).changes };
    });
    const sites = await this.select<{ site: number }>('select site from analytics_sites order by site', []);
    let visitDays = 0;
    // One transaction per site keeps each lock short.
    for (const { site } of sites) {
      visitDays += await this.writeTransaction(() => this.prepared(statements.visitDays).run(site, horizonDay, horizonDay).changes);
    }
    return { hits, eventIds, visitDays };
  }

  async prunedBefore(): Promise<number> {
    const rows = await this.select<{ value: number }>("select value from analytics_state where name = 'pruned_before'", []);
    return rows[0]?.value ?? 0;
  }

  async deleteProjectData(projectId: string, batchRows: number = DELETE_BATCH_ROWS): Promise<DeletedProjectData> {
    const deleted: DeletedProjectData = { ...NOTHING_DELETED };
    deleted.beaconSenders = await this.writeTransaction(() => this.prepared(DELETE_BEACON_SENDERS).run(projectId).changes);
    const site = await this.siteOf(projectId);
    if (site === null) return deleted;
    // One short transaction per batch: ingestion, folds and reports of other projects
    // get the write lock between them. A fold between two batches may still fold some of
    // the site's hits; the rollups go after the last hit, so what it writes goes too.
    for (const table of SITE_TABLES) {
      const statement = deleteSiteBatch('sqlite', table);
      for (;;) {
        const changes = await this.writeTransaction(() => this.prepared(statement).run(site, batchRows).changes);
        deleted[table.counter] += changes;
        if (changes < batchRows) break;
      }
    }
    // Last: until here a repeated call can find the site and finish the job.
    deleted.sites = await this.writeTransaction(() => this.prepared(DELETE_SITE).run(site).changes);
    return deleted;
  }
}
