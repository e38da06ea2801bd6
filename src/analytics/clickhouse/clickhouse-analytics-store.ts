import { randomFillSync } from 'node:crypto';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseSettings } from '../../config/clickhouse-settings.js';
import type { Clock } from '../../core/clock.js';
import type { AnalyticsStore, HitBatch, InsertHitsResult, PruneCounts } from '../analytics-store.js';
import { dayOf } from '../analytics-codes.js';
import type { DeletedProjectData } from '../project-data-deletion.js';
import type { CountingStore } from '../range-counts.js';
import { listLiteral, raw, sql } from './clickhouse-literal.js';
import { localTable, migrateClickHouse, onCluster, readTable, type ClickHouseTarget } from './clickhouse-migrations.js';
import { ClickHouseRangeCounter } from './clickhouse-range-counter.js';
import { waitForMutations } from './clickhouse-mutations.js';

/**
 * Tables keyed by site that a project deletion empties, the counter each one feeds and
 * what it counts: logical rows (one per key), which background merges do not change.
 */
export const CLICKHOUSE_SITE_TABLES = [
  { table: 'analytics_hits', counter: 'hits', rows: 'count()' },
  { table: 'analytics_event_ids', counter: 'eventIds', rows: 'uniqExact(event_id)' },
  { table: 'analytics_visitor_days', counter: 'visitorCounts', rows: 'uniqExact(day, dim, grp)' },
  { table: 'analytics_hit_days', counter: 'hitCounts', rows: 'uniqExact(day, class, agent)' },
] as const;

/**
 * Analytics in ClickHouse (DOCWRIGHT_ANALYTICS_URL): raw hits, event ids and the exact
 * rollups live there; the site ids and the dictionaries (pages, agents, user agents)
 * stay in the primary database with the projects, so the SQL store beside it keeps
 * answering those. Nothing to fold: materialized views fill the rollups as hits are
 * inserted, so a hit is queryable when its insert returns.
 */
export class ClickHouseAnalyticsStore implements CountingStore {
  readonly dialect: AnalyticsStore['dialect'];
  readonly counter: ClickHouseRangeCounter;
  private readonly client: ClickHouseClient;
  private readonly target: ClickHouseTarget;
  private migrated: Promise<unknown> | undefined;
  private readonly inserting = new Map<number, Promise<void>>();

  constructor(
    private readonly primary: AnalyticsStore,
    settings: ClickHouseSettings,
    private readonly clock: Clock,
  ) {
    this.dialect = primary.dialect;
    this.target = { database: settings.database, cluster: settings.cluster };
    this.client = createClient({
      url: settings.url,
      username: settings.username,
      password: settings.password,
      // On a cluster an insert (into the Distributed table) returns once every shard has its rows, so they are queryable.
      ...(settings.cluster === undefined ? {} : { clickhouse_settings: { insert_distributed_sync: 1 } }),
    });
    this.counter = new ClickHouseRangeCounter(this.client, this.target);
  }

  /** Runs the migrations once per process, before the first use (again after a failure). */
  ready(): Promise<unknown> {
    this.migrated ??= migrateClickHouse(this.client, this.target, this.clock).catch((error: unknown) => {
      this.migrated = undefined;
      throw error;
    });
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
   * Stores the hits whose event id is new. The check and the insert are two requests, so
   * two processes storing the same new id at once may both store it: hit counts stay
   * exact (hits are counted as unique (event id, nonce)), and so do visitors when the
   * retry is the same event; only the second answer's `duplicates` misses it
   * (docs/analytics.md, "ClickHouse").
   */
  insertHits(batch: HitBatch): Promise<InsertHitsResult> {
    // Within a process the check and the insert of one site are serialised, so every
    // answer's `duplicates` is exact and the first event of an id is the one stored.
    const previous = this.inserting.get(batch.site) ?? Promise.resolve();
    const run = previous.then(() => this.insertNewHits(batch));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.inserting.set(batch.site, settled);
    void settled.then(() => {
      if (this.inserting.get(batch.site) === settled) this.inserting.delete(batch.site);
    });
    return run;
  }

  private async insertNewHits(batch: HitBatch): Promise<InsertHitsResult> {
    await this.ready();
    const seen = new Set<string>();
    const ids = batch.eventId.filter((id): id is string => id !== null);
    if (ids.length > 0) {
      const stored = await (
        await this.client.query({
          query: sql`SELECT DISTINCT event_id FROM ${this.table('analytics_event_ids')} WHERE site = ${batch.site} AND event_id IN ${listLiteral([...new Set(ids)])}`,
          format: 'JSONEachRow',
        })
      ).json<{ event_id: string }>();
      for (const row of stored) seen.add(row.event_id);
    }
    const nonces = new BigUint64Array(batch.count);
    randomFillSync(nonces);
    const rows: object[] = [];
    let duplicates = 0;
    for (let index = 0; index < batch.count; index++) {
      const eventId = batch.eventId[index] ?? null;
      if (eventId !== null) {
        if (seen.has(eventId)) {
          duplicates++;
          continue;
        }
        seen.add(eventId);
      }
      const at = batch.at[index]!;
      rows.push({
        site: batch.site,
        at,
        day: dayOf(at),
        page: batch.page[index],
        visitor: batch.visitor[index]!.toString(),
        class: batch.classCode[index],
        agent: batch.agent[index],
        user_agent: batch.userAgent[index],
        referrer: batch.referrer[index] ?? null,
        markdown_accept: batch.markdownAccept[index],
        classifier_version: batch.classifierVersion,
        event_id: eventId ?? '',
        nonce: eventId === null ? nonces[index]!.toString() : '0',
      });
    }
    if (rows.length > 0) await this.client.insert({ table: readTable(this.target, 'analytics_hits'), values: rows, format: 'JSONEachRow' });
    return { stored: rows.length, duplicates };
  }

  /**
   * Deletes raw hits and event ids older than `before` (the rollups stay: whole days remain
   * exact for all history), waits until the deletes are done, and lets the primary store
   * record the horizon.
   */
  async prune(before: number): Promise<PruneCounts> {
    await this.ready();
    const hits = await this.count(sql`SELECT count() AS n FROM ${this.table('analytics_hits')} WHERE at < ${before}`);
    const eventIds = await this.count(sql`SELECT uniqExact(site, event_id) AS n FROM ${this.table('analytics_event_ids')} WHERE at < ${before}`);
    if (hits > 0) await this.mutate('analytics_hits', sql`at < ${before}`);
    if (eventIds > 0) await this.mutate('analytics_event_ids', sql`at < ${before}`);
    const primary = await this.primary.prune(before);
    return { hits: hits + primary.hits, eventIds: eventIds + primary.eventIds, visitDays: primary.visitDays };
  }

  /** Deletes the project's rows here, then the primary store's (dictionaries, site, beacon cap). */
  async deleteProjectData(projectId: string, batchRows?: number): Promise<DeletedProjectData> {
    await this.ready();
    const site = await this.primary.siteOf(projectId);
    const here: Partial<Record<keyof DeletedProjectData, number>> = {};
    if (site !== null) {
      for (const { table, counter, rows: logicalRows } of CLICKHOUSE_SITE_TABLES) {
        const rows = await this.count(sql`SELECT ${raw(logicalRows)} AS n FROM ${this.table(table)} WHERE site = ${site}`);
        here[counter] = rows;
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
    };
  }

  /** ALTER … DELETE is asynchronous on every release; waits until the table's mutations are done. */
  private async mutate(table: string, where: string): Promise<void> {
    await this.client.command({ query: `ALTER TABLE ${localTable(this.target, table)}${onCluster(this.target)} DELETE WHERE ${where}` });
    await waitForMutations(this.client, this.target, table);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
