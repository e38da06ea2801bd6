import type pg from 'pg';
import type { Database } from '../db/database.js';
import type { AnalyticsStore, HitBatch, InsertHitsResult, PruneCounts } from './analytics-store.js';
import { foldStatements } from './fold-statements.js';
import { pruneStatements } from './prune-statements.js';
import { integerArrayLiteral, textArrayLiteral } from './postgres-array-literal.js';
import { createGroupCommit, type GroupCommit } from './group-commit.js';
import { BEGIN_INGEST, FOLD_HORIZON, SNAPSHOT_END } from './postgres-fold-horizon.js';
import { setTimeout as delay } from 'node:timers/promises';

/** `?` placeholders (shared SQL) to PostgreSQL's `$1, $2…`. The shared SQL has no `?` inside literals. */
export function numberPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

const FOLD_LOCK = 'docwright:analytics:fold';

const INSERT_HITS = `insert into analytics_hits
  (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version)
  select site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version
  from unnest($1::integer[], $2::bigint[], $3::integer[], $4::bigint[], $5::smallint[], $6::integer[], $7::integer[], $8::text[], $9::smallint[], $10::integer[])
    as given (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version)`;

/** Batches written in one transaction at most, and their hits. */
const GROUP_MAX_BATCHES = 16;
const GROUP_MAX_HITS = 16_000;
/** Ingest transactions of this process in flight at once: one writes while another is on the wire. */
const GROUP_CONCURRENCY = 3;
/**
 * A fold for a query waits for the ingest transactions that were running when it was
 * asked, polling this often, for at most this long: hits of a transaction still open
 * then are counted by a later fold.
 */
const HORIZON_POLL_MS = 2;
const DEFAULT_HORIZON_WAIT_MS = 10_000;

export interface PostgresAnalyticsStoreOptions {
  /** How long a fold waits for ingest transactions that were running when it was asked. */
  horizonWaitMs?: number;
}

const INSERT_EVENT_IDS = `insert into analytics_event_ids (site, event_id, at)
  select site, id, at from unnest($1::integer[], $2::text[], $3::bigint[]) as given (site, id, at)
  order by site, id
  on conflict do nothing returning site, event_id`;

/** PostgreSQL storage: a few round trips per group of batches (unnest arrays); folds by transaction id. */
export class PostgresAnalyticsStore implements AnalyticsStore {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly foldSql = foldStatements('postgres');
  private readonly converted = new Map<string, string>();

  /** Concurrent batches are written together, a few transactions at a time, sharing round trips and commits. */
  private readonly insertGrouped: GroupCommit<HitBatch, InsertHitsResult>;

  private readonly horizonWaitMs: number;

  constructor(database: Database, options: PostgresAnalyticsStoreOptions = {}) {
    if (database.raw.dialect !== 'postgres') throw new Error('PostgresAnalyticsStore needs a PostgreSQL database');
    this.pool = database.raw.pool;
    this.horizonWaitMs = options.horizonWaitMs ?? DEFAULT_HORIZON_WAIT_MS;
    this.insertGrouped = createGroupCommit({
      commit: (batches) => this.insertGroup(batches),
      maxItems: GROUP_MAX_BATCHES,
      maxWeight: GROUP_MAX_HITS,
      weightOf: (batch) => batch.count,
      concurrency: GROUP_CONCURRENCY,
    });
  }

  private sql(text: string): string {
    let converted = this.converted.get(text);
    if (converted === undefined) {
      converted = numberPlaceholders(text);
      this.converted.set(text, converted);
    }
    return converted;
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>, begin = 'begin'): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query(begin);
      try {
        const result = await work(client);
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      }
    } finally {
      client.release();
    }
  }

  async siteOf(projectId: string): Promise<number | null> {
    const { rows } = await this.pool.query<{ site: number }>('select site from analytics_sites where project_id = $1', [projectId]);
    return rows[0]?.site ?? null;
  }

  async ensureSite(projectId: string): Promise<number> {
    await this.pool.query('insert into analytics_sites (project_id) values ($1) on conflict (project_id) do nothing', [projectId]);
    const site = await this.siteOf(projectId);
    if (site === null) throw new Error(`analytics site of project ${projectId} vanished`);
    return site;
  }

  async ensureDimensions(site: number, kind: number, names: readonly string[]): Promise<Map<string, number>> {
    const list = [...names];
    await this.pool.query(
      'insert into analytics_dimensions (site, kind, name) select $1, $2, unnest($3::text[]) order by 3 on conflict (site, kind, name) do nothing',
      [site, kind, list],
    );
    const { rows } = await this.pool.query<{ id: number; name: string }>(
      'select id, name from analytics_dimensions where site = $1 and kind = $2 and name = any($3::text[])',
      [site, kind, list],
    );
    return new Map(rows.map((row) => [row.name, row.id]));
  }

  async ensureUserAgents(userAgents: readonly string[]): Promise<Map<string, number>> {
    const list = [...userAgents];
    await this.pool.query(
      'insert into analytics_user_agents (user_agent) select unnest($1::text[]) order by 1 on conflict (md5(user_agent)) do nothing',
      [list],
    );
    const { rows } = await this.pool.query<{ id: number; user_agent: string }>(
      'select id, user_agent from analytics_user_agents where md5(user_agent) in (select md5(value) from unnest($1::text[]) as value)',
      [list],
    );
    return new Map(rows.map((row) => [row.user_agent, row.id]));
  }

  async ensureClassifierVersion(version: string): Promise<number> {
    await this.pool.query('insert into analytics_classifier_versions (version) values ($1) on conflict (version) do nothing', [version]);
    const { rows } = await this.pool.query<{ id: number }>('select id from analytics_classifier_versions where version = $1', [version]);
    return rows[0]!.id;
  }

  async insertHits(batch: HitBatch): Promise<InsertHitsResult> {
    if (batch.count === 0) return { stored: 0, duplicates: 0 };
    return this.insertGrouped(batch);
  }

  /** One transaction for several batches, in order: the same rows and answers as one transaction each. */
  private async insertGroup(batches: HitBatch[]): Promise<InsertHitsResult[]> {
    return this.transaction(async (client) => {
      const fresh = await this.storeEventIds(client, batches);
      const kept: Array<{ batch: HitBatch; index: number }> = [];
      const results: InsertHitsResult[] = [];
      for (const batch of batches) {
        let stored = 0;
        for (let index = 0; index < batch.count; index++) {
          const eventId = batch.eventId[index];
          // Only the first row of the group carrying a newly stored id is kept: later ones are retries too.
          if (eventId !== null && eventId !== undefined && !fresh.delete(eventIdKey(batch.site, eventId))) continue;
          kept.push({ batch, index });
          stored += 1;
        }
        results.push({ stored, duplicates: batch.count - stored });
      }
      if (kept.length > 0) {
        const positions = Array.from({ length: kept.length }, (_, position) => position);
        const column = (read: (batch: HitBatch, index: number) => number | bigint | null): string =>
          integerArrayLiteral(positions, (position) => read(kept[position]!.batch, kept[position]!.index));
        await client.query(INSERT_HITS, [
          column((batch) => batch.site),
          column((batch, index) => batch.at[index]!),
          column((batch, index) => batch.page[index]!),
          column((batch, index) => batch.visitor[index]!),
          column((batch, index) => batch.classCode[index]!),
          column((batch, index) => (batch.agent[index] === 0 ? null : batch.agent[index]!)),
          column((batch, index) => (batch.userAgent[index] === 0 ? null : batch.userAgent[index]!)),
          textArrayLiteral(positions, (position) => kept[position]!.batch.referrer[kept[position]!.index] ?? null),
          column((batch, index) => batch.markdownAccept[index]!),
          column((batch) => batch.classifierVersion),
        ]);
      }
      return results;
    }, BEGIN_INGEST);
  }

  /**
   * Stores the group's event ids in one statement; returns the ones that were new. Sorted,
   * so two transactions storing the same ids wait for each other in one order and cannot
   * deadlock. A transaction that meets an id another one has stored but not committed
   * waits for it: a retry counts once however the two interleave.
   */
  private async storeEventIds(client: pg.PoolClient, batches: HitBatch[]): Promise<Set<string>> {
    const withIds: Array<{ batch: HitBatch; index: number }> = [];
    for (const batch of batches) {
      for (let index = 0; index < batch.count; index++) if (batch.eventId[index] != null) withIds.push({ batch, index });
    }
    if (withIds.length === 0) return new Set();
    const positions = Array.from({ length: withIds.length }, (_, position) => position);
    const { rows } = await client.query<{ site: number; event_id: string }>(INSERT_EVENT_IDS, [
      integerArrayLiteral(positions, (position) => withIds[position]!.batch.site),
      textArrayLiteral(positions, (position) => withIds[position]!.batch.eventId[withIds[position]!.index] ?? null),
      integerArrayLiteral(positions, (position) => withIds[position]!.batch.at[withIds[position]!.index]!),
    ]);
    return new Set(rows.map((row) => eventIdKey(row.site, row.event_id)));
  }

  async fold(chunkSize: number, betweenChunks?: () => Promise<boolean>): Promise<number> {
    // Every hit committed before this call has a transaction id below `end`.
    const { rows } = await this.pool.query<{ end: string }>(SNAPSHOT_END);
    const end = BigInt(rows[0]!.end);
    const waitUntil = performance.now() + this.horizonWaitMs;
    let folded = 0;
    for (;;) {
      const step = await this.transaction((client) => this.foldChunk(client, chunkSize));
      if (step.folded > 0) {
        folded += step.folded;
        if (betweenChunks && !(await betweenChunks())) return folded;
        continue;
      }
      // Nothing below the horizon: done, unless an ingest transaction that was running
      // when this fold was asked for still holds it below hits committed before then.
      if (step.horizon >= end || performance.now() > waitUntil) return folded;
      await delay(HORIZON_POLL_MS);
    }
  }

  /** One transaction: up to about `chunkSize` hits from the folded mark, of ended transactions only. */
  private async foldChunk(client: pg.PoolClient, chunkSize: number): Promise<{ folded: number; horizon: bigint }> {
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [FOLD_LOCK]);
    const state = await client.query<{ value: string }>("select value::text as value from analytics_state where name = 'folded_transaction'");
    const from = BigInt(state.rows[0]!.value);
    const horizon = BigInt((await client.query<{ horizon: string }>(FOLD_HORIZON)).rows[0]!.horizon);
    if (horizon <= from) return { folded: 0, horizon };
    const { rows } = await client.query<{ first: string | null; bound: string | null }>(
      `select
        (select transaction_id::text from analytics_hits where transaction_id >= $1::xid8 and transaction_id < $2::xid8 order by transaction_id limit 1) as first,
        (select transaction_id::text from analytics_hits where transaction_id >= $1::xid8 and transaction_id < $2::xid8 order by transaction_id offset $3 limit 1) as bound`,
      [from.toString(), horizon.toString(), chunkSize],
    );
    if (rows[0]!.first === null) return { folded: 0, horizon };
    // Nothing is below the first hit left. A chunk ends before the transaction of its
    // `chunkSize`th hit; a bigger transaction goes whole.
    const first = BigInt(rows[0]!.first);
    const bound = rows[0]!.bound === null ? horizon : BigInt(rows[0]!.bound);
    const to = bound > first ? bound : first + 1n;
    const range = [first.toString(), to.toString()];
    const statements = this.foldSql;
    for (const sql of statements.setup) await client.query(sql);
    for (const sql of statements.collectKeys) await client.query(this.sql(sql), range);
    // Fresh temporary tables have no statistics; without them the planner guesses badly.
    await client.query('analyze analytics_fold_keys');
    await client.query(statements.describeKeys);
    await client.query('analyze analytics_fold_info');
    await client.query(statements.countLoneVisitors);
    await client.query(statements.countVisitors);
    await client.query(statements.storeVisitDays);
    await client.query(this.sql(statements.countHits), range);
    await client.query(statements.raiseMaxDays);
    await client.query("update analytics_state set value = $1 where name = 'folded_transaction'", [to.toString()]);
    const counted = await client.query<{ n: number }>('select count(*) as n from analytics_hits where transaction_id >= $1::xid8 and transaction_id < $2::xid8', range);
    return { folded: counted.rows[0]!.n, horizon };
  }

  async pendingHits(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      "select count(*) as n from analytics_hits where transaction_id >= (select value::text::xid8 from analytics_state where name = 'folded_transaction')",
    );
    return rows[0]!.n;
  }

  async select<Row>(sql: string, parameters: readonly unknown[]): Promise<Row[]> {
    const { rows } = await this.pool.query(this.sql(sql), [...parameters]);
    return rows as Row[];
  }

  async prune(before: number): Promise<PruneCounts> {
    const statements = pruneStatements('postgres');
    const horizonDay = statements.dayOf(before);
    const { hits, eventIds } = await this.transaction(async (client) => {
      // Under the fold lock: the folded mark the hit deletion reads cannot move meanwhile.
      await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [FOLD_LOCK]);
      await client.query(this.sql(statements.raiseWatermark), [before]);
      const deletedHits = await client.query(this.sql(statements.hits), [before]);
      const deletedIds = await client.query(this.sql(statements.eventIds), [before]);
      return { hits: deletedHits.rowCount ?? 0, eventIds: deletedIds.rowCount ?? 0 };
    });
    const sites = await this.select<{ site: number }>('select site from analytics_sites order by site', []);
    let visitDays = 0;
    for (const { site } of sites) {
      visitDays += await this.transaction(async (client) => {
        await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [FOLD_LOCK]);
        return (await client.query(this.sql(statements.visitDays), [site, horizonDay, horizonDay])).rowCount ?? 0;
      });
    }
    return { hits, eventIds, visitDays };
  }

  async prunedBefore(): Promise<number> {
    const rows = await this.select<{ value: number }>("select value from analytics_state where name = 'pruned_before'", []);
    return rows[0]?.value ?? 0;
  }
}

function eventIdKey(site: number, eventId: string): string {
  return `${site}\u0000${eventId}`;
}
