import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseSettings } from '../../config/clickhouse-settings.js';
import { systemClock, type Clock } from '../../core/clock.js';
import type { AnalyticsReader, AnalyticsStore, HitBatch, InsertHitsResult, PruneCounts } from '../analytics-store.js';
import type { DeletedProjectData } from '../project-data-deletion.js';
import type { CountingStore } from '../range-counts.js';
import { relabelReplays } from '../relabel-replays.js';
import { raw, sql } from './clickhouse-literal.js';
import { ClickHouseHitWriter } from './clickhouse-hit-writer.js';
import { localTable, migrateClickHouse, onCluster, readTable, type ClickHouseTarget } from './clickhouse-migrations.js';
import { ClickHouseGenerations } from './clickhouse-generations.js';
import { ClickHouseRangeCounter } from './clickhouse-range-counter.js';
import { ClickHouseReclassifier } from './clickhouse-reclassifier.js';
import { waitForMutations } from './clickhouse-mutations.js';
import { withTroubleNamed } from './clickhouse-trouble.js';
import { ClickHouseSpool, type SpoolRecord } from './clickhouse-spool.js';
import { ClickHouseSpoolDrainer, type SpoolDrainPolicy } from './clickhouse-spool-drainer.js';

export interface ClickHouseStoreOptions {
  /** The spool's SQLite file, instead of the settings' (`spoolFile`, else in memory). */
  spoolFile?: string;
  drainPolicy?: SpoolDrainPolicy;
  /** Hears background drain failures (logged by the caller; the records stay spooled and are retried). */
  onBackgroundError?: (error: unknown) => void;
}

/**
 * Tables keyed by site that a project deletion empties, the counter each one feeds and
 * what it counts: logical rows (one per key), which background merges do not change.
 * Rollup rows are counted once per generation a reclassification left.
 */
export const CLICKHOUSE_SITE_TABLES = [
  { table: 'analytics_hits', counter: 'hits', rows: 'count()' },
  { table: 'analytics_event_ids', counter: 'eventIds', rows: 'uniqExact(event_id)' },
  { table: 'analytics_visitor_gen_days', counter: 'visitorCounts', rows: 'uniqExact(day, gen, dim, grp)' },
  { table: 'analytics_hit_gen_days', counter: 'hitCounts', rows: 'uniqExact(day, gen, class, agent)' },
  { table: 'analytics_page_view_gen_days', counter: 'pageViews', rows: 'uniqExact(day, gen, page, class)' },
  // Not counted: the generations of reclassifications, and the rollups migration 004 replaced
  // (still holding what was stored before it, so deleted too).
  { table: 'analytics_generations', counter: null, rows: 'count()' },
  { table: 'analytics_visitor_days', counter: null, rows: 'count()' },
  { table: 'analytics_hit_days', counter: null, rows: 'count()' },
  { table: 'analytics_page_view_days', counter: null, rows: 'count()' },
] as const;

/**
 * Analytics in ClickHouse (DOCWRIGHT_ANALYTICS_URL): raw hits, event ids and the exact
 * rollups live there; the site ids and the dictionaries (pages, agents, user agents)
 * stay in the primary database with the projects, so the SQL store beside it keeps
 * answering those. Nothing to fold: materialized views fill the rollups as hits are
 * inserted. Accepted hits are committed to a local spool first and drained into
 * ClickHouse in large inserts (clickhouse-spool.ts); every read drains the spool first, so
 * a hit is queryable once its request is answered.
 */
export class ClickHouseAnalyticsStore implements CountingStore {
  readonly dialect: AnalyticsStore['dialect'];
  readonly counter: ClickHouseRangeCounter;
  private readonly client: ClickHouseClient;
  private readonly target: ClickHouseTarget;
  private migrated: Promise<unknown> | undefined;
  private readonly writer: ClickHouseHitWriter;
  private readonly generations: ClickHouseGenerations;
  /** Reclassification of stored hits (ReclassificationJob), by generations. */
  readonly reclassifier: ClickHouseReclassifier;
  private readonly spool: ClickHouseSpool;
  private readonly drainer: ClickHouseSpoolDrainer;

  constructor(
    private readonly primary: AnalyticsStore,
    settings: ClickHouseSettings,
    private readonly clock: Clock,
    options: ClickHouseStoreOptions = {},
  ) {
    this.dialect = primary.dialect;
    this.target = { database: settings.database, cluster: settings.cluster };
    this.client = withTroubleNamed(
      createClient({
        url: settings.url,
        username: settings.username,
        password: settings.password,
        // The client would print its errors to the console itself; they reach the caller
        // anyway and are logged there, as JSON, like every other error.
        log: { level: ClickHouseLogLevel.OFF },
        // On a cluster an insert (into the Distributed table) returns once every shard has its rows, so they are queryable.
        ...(settings.cluster === undefined ? {} : { clickhouse_settings: { insert_distributed_sync: 1 } }),
      }),
    );
    this.generations = new ClickHouseGenerations(this.client, this.target, () => clock.now());
    this.counter = new ClickHouseRangeCounter(this.client, this.target, this.generations);
    const onError = options.onBackgroundError ?? (() => undefined);
    this.spool = new ClickHouseSpool(options.spoolFile ?? settings.spoolFile ?? ':memory:');
    this.drainer = new ClickHouseSpoolDrainer(
      this.spool,
      async (records) => {
        await this.ready();
        await this.writer.writeSpooled(await this.ofLiveSites(records), (record, error) =>
          onError(
            new Error(`ClickHouse spool: record ${record.id} (${record.hits} hits of site ${record.site}) cannot be read and was set aside`, { cause: error }),
          ),
        );
      },
      // Ages and leases are compared across processes sharing the file: wall time, not the data clock.
      systemClock,
      onError,
      options.drainPolicy,
    );
    this.writer = new ClickHouseHitWriter(
      this.client,
      this.target,
      this.generations,
      this.spool,
      (hits) => this.drainer.added(hits),
      systemClock,
      settings.spoolMaxHits,
    );
    this.reclassifier = new ClickHouseReclassifier(
      this.primary,
      this.client,
      this.target,
      this.generations,
      (table, where) => this.mutate(table, where),
      () => this.flush(),
    );
  }

  /**
   * The records whose site still exists in the main database. A project deleted while hits
   * of it waited in a spool its deletion did not drain (another machine's) must not come
   * back when that spool is drained: those records are dropped with the rest of the drain.
   */
  private async ofLiveSites(records: readonly SpoolRecord[]): Promise<SpoolRecord[]> {
    const sites = [...new Set(records.map((record) => record.site))];
    const rows = await this.primary.select<{ site: number }>(`select site from analytics_sites where site in (${sites.map(() => '?').join(', ')})`, sites);
    const live = new Set(rows.map((row) => Number(row.site)));
    return records.filter((record) => live.has(record.site));
  }

  /** Runs the migrations once per process, before the first use (again after a failure). */
  ready(): Promise<unknown> {
    this.migrated ??= migrateClickHouse(this.client, this.target, this.clock).then(
      // Batches a previous run left in the spool are drained from the start.
      () => this.drainer.start(),
      (error: unknown) => {
        this.migrated = undefined;
        throw error;
      },
    );
    return this.migrated;
  }

  siteOf(projectId: string) {
    return this.primary.siteOf(projectId);
  }
  ensureSite(projectId: string) {
    return this.primary.ensureSite(projectId);
  }
  ensureDimensions(site: number, kind: number, names: readonly string[]) {
    return this.primary.ensureDimensions(site, kind, names);
  }
  ensureUserAgents(userAgents: readonly string[]) {
    return this.primary.ensureUserAgents(userAgents);
  }
  ensureClassifierVersion(version: string) {
    return this.primary.ensureClassifierVersion(version);
  }
  select<Row>(query: string, parameters: readonly unknown[]): Promise<Row[]> {
    return this.primary.select<Row>(query, parameters);
  }
  async fold(): Promise<number> {
    await this.ready();
    return 0;
  }
  pendingHits(): Promise<number> {
    return Promise.resolve(0);
  }
  prunedBefore(): Promise<number> {
    return this.primary.prunedBefore();
  }

  private table(name: string) {
    return raw(readTable(this.target, name));
  }

  private async count(query: string): Promise<number> {
    const [row] = await (await this.client.query({ query, format: 'JSONEachRow' })).json<{ n: number | string }>();
    return Number(row?.n ?? 0);
  }

  /**
   * Stores the hits whose event id is new (see ClickHouseHitWriter for the guarantees):
   * resolves once they are committed to the spool. Signed nonces are claimed in the main
   * database around that commit (AnalyticsStore.claimAround): the claim stays only when
   * the spool has the rows, so a retry is not taken for a replay (docs/analytics.md,
   * "ClickHouse").
   */
  async insertHits(batch: HitBatch): Promise<InsertHitsResult> {
    await this.ready();
    if (batch.nonces === undefined) return this.writer.accept(batch);
    if (this.primary.claimAround === undefined) throw new Error('the main database store cannot claim nonces');
    return this.primary.claimAround(batch.nonces, (replays) => this.writer.accept(relabelReplays(batch, replays)));
  }

  /** Resolves once every hit accepted before the call is in ClickHouse (see ClickHouseSpoolDrainer.flush). */
  async flush(): Promise<void> {
    await this.ready();
    await this.drainer.flush();
  }

  /**
   * Deletes raw hits and event ids older than `before` (the rollups stay: whole days remain
   * exact for all history), waits until the deletes are done, and lets the primary store
   * record the horizon.
   */
  async prune(before: number): Promise<PruneCounts> {
    await this.flush();
    const hits = await this.count(sql`SELECT count() AS n FROM ${this.table('analytics_hits')} WHERE at < ${before}`);
    const eventIds = await this.count(sql`SELECT uniqExact(site, event_id) AS n FROM ${this.table('analytics_event_ids')} WHERE at < ${before}`);
    if (hits > 0) await this.mutate('analytics_hits', sql`at < ${before}`);
    if (eventIds > 0) await this.mutate('analytics_event_ids', sql`at < ${before}`);
    await this.reclassifier.deleteSuperseded();
    const primary = await this.primary.prune(before);
    return { hits: hits + primary.hits, eventIds: eventIds + primary.eventIds, visitDays: primary.visitDays };
  }

  /** Deletes the project's rows here, then the primary store's (dictionaries, site, beacon cap). */
  async deleteProjectData(projectId: string, batchRows?: number): Promise<DeletedProjectData> {
    // Spooled hits of the project go in first, so none is written after the deletion.
    await this.flush();
    const site = await this.primary.siteOf(projectId);
    const here: Partial<Record<keyof DeletedProjectData, number>> = {};
    if (site !== null) {
      for (const { table, counter, rows: logicalRows } of CLICKHOUSE_SITE_TABLES) {
        const rows = await this.count(sql`SELECT ${raw(logicalRows)} AS n FROM ${this.table(table)} WHERE site = ${site}`);
        if (counter !== null) here[counter] = rows;
        if (rows > 0) await this.mutate(table, sql`site = ${site}`);
      }
    }
    const primary = await this.primary.deleteProjectData(projectId, batchRows);
    return {
      ...primary,
      hits: primary.hits + (here.hits ?? 0),
      eventIds: primary.eventIds + (here.eventIds ?? 0),
      visitorCounts: primary.visitorCounts + (here.visitorCounts ?? 0),
      hitCounts: primary.hitCounts + (here.hitCounts ?? 0),
      pageViews: primary.pageViews + (here.pageViews ?? 0),
    };
  }

  /** ALTER … DELETE is asynchronous on every release; waits until the table's mutations are done (on every shard). */
  private async mutate(table: string, where: string): Promise<void> {
    await this.client.command({ query: `ALTER TABLE ${localTable(this.target, table)}${onCluster(this.target)} DELETE WHERE ${where}` });
    await waitForMutations(this.client, this.target, table, where);
  }

  /**
   * ClickHouse has no fold: its reports read the engine's own exact states. A report's
   * queries share one view of the generations (clickhouse-generations.ts), so a
   * reclassification switching meanwhile is wholly before or after for it.
   */
  async read<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    await this.flush();
    const reader: AnalyticsReader & { counter: ClickHouseRangeCounter } = {
      dialect: this.dialect,
      select: (query, parameters) => this.primary.select(query, parameters),
      counter: new ClickHouseRangeCounter(this.client, this.target, this.generations.snapshot()),
    };
    return work(reader);
  }

  async close(): Promise<void> {
    // A migration still running would otherwise fail half-way on a closed client.
    await this.migrated?.catch(() => undefined);
    // What ClickHouse does not take within a few seconds stays in the spool file for the next start.
    await this.drainer.stop();
    this.spool.close();
    await this.client.close();
  }
}
