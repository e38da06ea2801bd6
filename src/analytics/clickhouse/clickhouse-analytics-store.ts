import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseSettings } from '../../config/clickhouse-settings.js';
import { systemClock, type Clock } from '../../core/clock.js';
import type { AnalyticsReader, AnalyticsStore, FoldMode, HitBatch, InsertHitsResult, PruneCounts } from '../analytics-store.js';
import type { DeletedProjectData } from '../project-data-deletion.js';
import type { CountingStore } from '../range-counts.js';
import { relabelReplays } from '../relabel-replays.js';
import { raw, sql } from './clickhouse-literal.js';
import { ClickHouseCellBuilds, type CellBuild } from './clickhouse-cell-builds.js';
import { ClickHouseHitWriter } from './clickhouse-hit-writer.js';
import { migrateClickHouse, readTable, type ClickHouseTarget } from './clickhouse-migrations.js';
import { ClickHouseGenerations, type GenerationMap } from './clickhouse-generations.js';
import { ClickHouseRangeCounter } from './clickhouse-range-counter.js';
import { ClickHouseReclassifier } from './clickhouse-reclassifier.js';
import { deleteRows } from './clickhouse-mutations.js';
import { withTroubleNamed } from './clickhouse-trouble.js';
import { ClickHouseSpool, type SpoolRecord } from './clickhouse-spool.js';
import { ClickHouseSpoolDrainer, type SpoolDrainPolicy } from './clickhouse-spool-drainer.js';
import { CLICKHOUSE_SITE_TABLES } from './clickhouse-site-tables.js';

export interface ClickHouseStoreOptions {
  /** The spool's SQLite file, instead of the settings' (`spoolFile`, else in memory). */
  spoolFile?: string;
  drainPolicy?: SpoolDrainPolicy;
  /** Hears background drain failures (logged by the caller; the records stay spooled and are retried). */
  onBackgroundError?: (error: unknown) => void;
  /** How often a site's visitor cells may be rebuilt (tests: at every fold); default CELL_REBUILD. */
  cellRebuild?: CellRebuildPolicy;
}

/**
 * A site with hits newer than its cells gets new ones once `intervalMs` passed since its
 * last build's mark, or at once when at least `newerDayShare` of its stamped days are newer
 * (a bulk load or import, or a young site, whose build is cheap).
 */
export interface CellRebuildPolicy {
  intervalMs: number;
  newerDayShare: number;
  /** A background fold builds a site only once its latest day stamp is this old (STAMP_AHEAD_MS included). */
  quietMs: number;
}

const DAY_MS = 86_400_000;

/**
 * How far a visitor-cell build's mark stays behind the moment it starts, so that hits other
 * machines are still writing (each insert gives up after the client's 30 s request timeout)
 * fall after it: with a PostgreSQL main database, processes may run on several machines,
 * whose spools this one cannot drain. With SQLite every process shares this data directory's
 * spool, which the build drains first: no margin (docs/analytics.md, "ClickHouse").
 */
const CELL_MARGIN_MS = 60_000;

/**
 * A site's cells are rebuilt (its whole retained history: about 40 s of ClickHouse at 10M
 * hits) at most every 10 minutes while only a few of its days get hits (a live site: today),
 * at once when a tenth of its days have hits newer than its cells, or it has none yet, or a
 * reclassification switched it.
 */
export const CELL_REBUILD: CellRebuildPolicy = Object.freeze({ intervalMs: 10 * 60_000, newerDayShare: 0.1, quietMs: 10_000 });
/** Newer days from which a prune's fold takes them for a bulk load and skips the site (a live one has today, maybe yesterday). */
const BULK_NEWER_DAYS = 3;

/**
 * Analytics in ClickHouse (DOCWRIGHT_ANALYTICS_URL): raw hits, event ids and the exact
 * rollups live there; the site ids and the dictionaries (pages, agents, user agents)
 * stay in the primary database with the projects, so the SQL store beside it keeps
 * answering those. Materialized views fill the exact rollups as hits are inserted; the
 * visitor cells are rebuilt when quiet (`fold`, clickhouse-cell-builds.ts) and read only
 * while current. Accepted hits are committed to a local spool first and drained into
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
  /** For visitor-cell builds, which run for minutes at 10M hits: past the main client's 30 s request timeout. */
  private readonly longClient: ClickHouseClient;
  /** The visitor cells: built by `fold`, read by reports when current. */
  readonly cells: ClickHouseCellBuilds;
  private readonly cellMarginMs: number;
  private readonly cellRebuild: CellRebuildPolicy;

  constructor(
    private readonly primary: AnalyticsStore,
    settings: ClickHouseSettings,
    private readonly clock: Clock,
    options: ClickHouseStoreOptions = {},
  ) {
    this.dialect = primary.dialect;
    this.target = { database: settings.database, cluster: settings.cluster };
    const clientConfig = {
      url: settings.url,
      username: settings.username,
      password: settings.password,
      // The client would print its errors to the console itself; they reach the caller
      // anyway and are logged there, as JSON, like every other error.
      log: { level: ClickHouseLogLevel.OFF },
    };
    // On a cluster an insert (into the Distributed table) returns once every shard has its rows, so they are queryable.
    const distributedSync = settings.cluster === undefined ? {} : { insert_distributed_sync: 1 as const };
    this.client = withTroubleNamed(createClient({ ...clientConfig, clickhouse_settings: distributedSync }));
    // Progress headers every 10 s keep a long statement's connection from looking idle to proxies.
    this.longClient = withTroubleNamed(
      createClient({
        ...clientConfig,
        request_timeout: 3_600_000,
        clickhouse_settings: { ...distributedSync, send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '10000' },
      }),
    );
    this.cellMarginMs = primary.dialect === 'sqlite' ? 0 : CELL_MARGIN_MS;
    this.cellRebuild = options.cellRebuild ?? CELL_REBUILD;
    this.generations = new ClickHouseGenerations(this.client, this.target, () => clock.now());
    this.cells = new ClickHouseCellBuilds(this.client, this.longClient, this.target, (table, where) => this.mutate(table, where));
    this.counter = new ClickHouseRangeCounter(this.client, this.target, this.generations, this.cells);
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
  /**
   * Builds the visitor cells of each site with hits they do not hold yet (ClickHouseCellBuilds),
   * at most as often as the rebuild policy allows (CELL_REBUILD);
   * `betweenChunks` answering false (ingest or a report started) stops before the next
   * site. Returns how many sites' cells it built (reports are exact either way: until a
   * site's cells are current for a range, it reads the uniqExact states).
   */
  async fold(_chunkSize?: number, betweenChunks: () => Promise<boolean> = () => Promise.resolve(true), mode: FoldMode = 'requested'): Promise<number> {
    // A background fold that a request or report interrupts asks ClickHouse nothing: even
    // finding the pending sites reads every day stamp.
    if (!(await betweenChunks())) return 0;
    // Hits accepted before the call are stamped and in ClickHouse before the sites are listed.
    await this.flush();
    const pending = await this.cells.pending();
    const lookups = new Map<number, Promise<[CellBuild | null, GenerationMap]>>();
    const lookup = (site: number): Promise<[CellBuild | null, GenerationMap]> => {
      let found = lookups.get(site);
      if (found === undefined) lookups.set(site, (found = Promise.all([this.cells.latest(site), this.generations.of(site)])));
      return found;
    };
    // Sites a reclassification switched since their last build: stale without a new hit.
    const listed = new Set(pending.map((entry) => entry.site));
    for (const site of await this.generations.sites()) {
      if (listed.has(site)) continue;
      const [latest, map] = await lookup(site);
      if (latest !== null && latest.switched !== map.latestSwitch()) pending.push({ site, newerDays: 0, days: 0, written: 0 });
    }
    let built = 0;
    for (const { site, newerDays, days, written } of pending) {
      const [latest, map] = await lookup(site);
      const many = newerDays >= Math.max(1, days * this.cellRebuild.newerDayShare);
      if (latest !== null) {
        const recent = systemClock.now() - latest.mark < this.cellRebuild.intervalMs && !many;
        if (recent && latest.switched === map.latestSwitch()) continue;
      }
      // A bulk load, maybe still running: a prune leaves it to the background fold's quiet moment.
      if (mode === 'prune' && many && newerDays >= BULK_NEWER_DAYS) continue;
      // The mark must pass the site's latest stamp (drains stamp up to a second ahead, and with
      // a margin the mark trails the clock), or the build is stale for those days when done.
      // In the background, only once the site's hits have stopped for quietMs too: a build is
      // one statement of seconds that cannot give way, and builds started in short pauses of a
      // bulk load would compete with it. A requested fold waits for the stamp alone.
      const until = mode === 'background' ? written + 1 + this.cellRebuild.quietMs + this.cellMarginMs : written + 1;
      if (!(await this.quietUntil(until, betweenChunks))) return built;
      if (!(await betweenChunks())) return built;
      await this.flush();
      // A drain that stamped its days before the mark had taken its records from the spool
      // before it, so the second flush waits for them: every hit of this data directory stamped
      // before the mark is in ClickHouse when the build reads.
      const mark = systemClock.now() - this.cellMarginMs;
      await this.flush();
      await this.cells.build(site, mark, Math.ceil((await this.primary.prunedBefore()) / DAY_MS), map.latestSwitch());
      built++;
    }
    return built;
  }
  /** Waits until the wall clock reaches `until`; false once betweenChunks says ingest or a report started meanwhile. */
  private async quietUntil(until: number, betweenChunks: () => Promise<boolean>): Promise<boolean> {
    for (;;) {
      const wait = until - systemClock.now();
      if (wait <= 0) return true;
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 1_000)));
      if (!(await betweenChunks())) return false;
    }
  }

  /** 0: a SQL prune folds first and waits while this is large; a ClickHouse prune skips bulk loads' builds (fold). */
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
    await deleteRows(this.client, this.target, table, where);
  }

  /**
   * Reports read the engine's own exact states, or the visitor cells where those are
   * current (nothing waits for a build). A report's queries share one view of the generations (clickhouse-generations.ts), so a
   * reclassification switching meanwhile is wholly before or after for it.
   */
  async read<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    await this.flush();
    const reader: AnalyticsReader & { counter: ClickHouseRangeCounter } = {
      dialect: this.dialect,
      select: (query, parameters) => this.primary.select(query, parameters),
      counter: new ClickHouseRangeCounter(this.client, this.target, this.generations.snapshot(), this.cells),
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
    await this.longClient.close();
  }
}
