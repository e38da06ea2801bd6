import type pg from 'pg';
import type { Database } from '../db/database.js';
import type { AnalyticsReader, AnalyticsStore, BatchNonces, HitBatch, InsertHitsResult, PruneCounts, SqlRunner } from './analytics-store.js';
import { claimedHitsQuery, claimGroupNonces } from './postgres-nonce-claims.js';
import { claimNoncesPostgres } from './verification/nonce-ledger.js';
import { readSnapshot } from './postgres-report-snapshot.js';
import { foldStatements } from './fold-statements.js';
import { pruneStatements } from './prune-statements.js';
import { integerArrayLiteral, textArrayLiteral } from './postgres-array-literal.js';
import { INSERT_HITS, INSERT_HITS_NAME, hitColumns, singleStatementGroup, type HitRow } from './postgres-hit-rows.js';
import { createGroupCommit, type GroupCommit } from '../db/group-commit.js';
import { databaseTrouble } from '../db/database-unavailable.js';
import {
  DELETE_BATCH_ROWS,
  DELETE_BEACON_SENDERS,
  DELETE_SITE,
  NOTHING_DELETED,
  SITE_TABLES,
  deleteSiteBatch,
  type DeletedProjectData,
} from './project-data-deletion.js';

/** `?` placeholders (shared SQL) to PostgreSQL's `$1, $2…`. The shared SQL has no `?` inside literals. */
export function numberPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

const FOLD_LOCK = 'docwright:analytics:fold';
const INSUFFICIENT_PRIVILEGE = '42501';
const LOCK_NOT_AVAILABLE = '55P03';

const INSERT_EVENT_IDS = `insert into analytics_event_ids (site, event_id, at)
  select site, id, at from unnest($1::integer[], $2::text[], $3::bigint[]) as given (site, id, at)
  order by site, id
  on conflict do nothing returning site, event_id`;

/**
 * Claims the oldest committed batches, in id order, until they hold `$1` hits (at least
 * one batch, however big). Deleting them is the claim: the fold's rollup changes commit
 * or roll back together with it. Batches of transactions still running are invisible
 * here and are claimed by a later fold once they commit.
 */
const CLAIM_BATCHES = `delete from analytics_ingest_batches where id in (
    select id from (
      select id, sum(hits) over (order by id) - hits as before from (select id, hits from analytics_ingest_batches order by id limit 10000) oldest
    ) running where before < $1)
  returning id, hits`;

/** Batches written in one transaction at most, and their hits. */
const GROUP_MAX_BATCHES = 16;
const GROUP_MAX_HITS = 16_000;
/** Ingest transactions of this process in flight at once: one is in the database while another is on the wire. */
const GROUP_CONCURRENCY = 3;

/**
 * PostgreSQL storage. Ingest writes a few batches per transaction (unnest arrays), with
 * no lock shared between transactions; a fold claims committed batches and folds their hits.
 */
export class PostgresAnalyticsStore implements AnalyticsStore {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly foldSql = foldStatements('postgres');
  private readonly converted = new Map<string, string>();

  /** Concurrent batches are written together, a few transactions at a time, sharing round trips and commits. */
  private readonly insertGrouped: GroupCommit<HitBatch, InsertHitsResult>;

  constructor(database: Database) {
    if (database.raw.dialect !== 'postgres') throw new Error('PostgresAnalyticsStore needs a PostgreSQL database');
    this.pool = database.raw.pool;
    this.insertGrouped = createGroupCommit({
      commit: (batches) => this.insertGroup(batches),
      maxItems: GROUP_MAX_BATCHES,
      maxWeight: GROUP_MAX_HITS,
      weightOf: (batch) => batch.count,
      concurrency: GROUP_CONCURRENCY,
      // A value PostgreSQL refuses fails its own batch, not the others grouped with it; a lost database fails them all at once.
      alone: (error) => databaseTrouble(error) === undefined,
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
    await this.pool.query('insert into analytics_user_agents (user_agent) select unnest($1::text[]) order by 1 on conflict (md5(user_agent)) do nothing', [
      list,
    ]);
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
    const single = singleStatementGroup(batches);
    if (single !== null) {
      // One statement is its own transaction: no begin and commit round trips; signed nonces are claimed in it.
      await this.pool.query(claimedHitsQuery(single) ?? { name: INSERT_HITS_NAME, text: INSERT_HITS, values: hitColumns(single) });
      return batches.map((batch) => ({ stored: batch.count, duplicates: 0 }));
    }
    return this.transaction(async (client) => {
      // Nonces first (then event ids, then hits): the claim commits with the hits or rolls back with them.
      const group = await claimGroupNonces(client, batches);
      const fresh = await this.storeEventIds(client, group);
      const kept: HitRow[] = [];
      const results: InsertHitsResult[] = [];
      for (const batch of group) {
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
      // One statement per site and classifier version: those two are the same for every row of it.
      const bySite = new Map<string, HitRow[]>();
      for (const row of kept) {
        const key = `${row.batch.site}:${row.batch.classifierVersion}`;
        const rows = bySite.get(key);
        if (rows === undefined) bySite.set(key, [row]);
        else rows.push(row);
      }
      for (const rows of bySite.values()) await client.query({ name: INSERT_HITS_NAME, text: INSERT_HITS, values: hitColumns(rows) });
      return results;
    });
  }

  /**
   * Stores the group's event ids in one statement; returns the ones that were new. Sorted,
   * so two transactions storing the same ids wait for each other in one order and cannot
   * deadlock. A transaction that meets an id another one has stored but not committed
   * waits for it: a retry counts once however the two interleave.
   */
  private async storeEventIds(client: pg.PoolClient, batches: HitBatch[]): Promise<Set<string>> {
    const withIds: HitRow[] = [];
    for (const batch of batches) {
      for (let index = 0; index < batch.count; index++) if (batch.eventId[index] != null) withIds.push({ batch, index });
    }
    if (withIds.length === 0) return new Set();
    const { rows } = await client.query<{ site: number; event_id: string }>(INSERT_EVENT_IDS, [
      integerArrayLiteral(withIds, (row) => row.batch.site),
      textArrayLiteral(withIds, (row) => row.batch.eventId[row.index] ?? null),
      integerArrayLiteral(withIds, (row) => row.batch.at[row.index]!),
    ]);
    return new Set(rows.map((row) => eventIdKey(row.site, row.event_id)));
  }

  /** For hits kept elsewhere (ClickHouse): the claim in a transaction held open across `work`; a rival claim of the same nonce waits for it. */
  claimAround<T>(nonces: BatchNonces, work: (replays: ReadonlySet<number>) => Promise<T>): Promise<T> {
    return this.transaction(async (client) => work(await claimNoncesPostgres(client, nonces.claims, nonces.nowSeconds)));
  }

  async fold(chunkSize: number, betweenChunks?: () => Promise<boolean>): Promise<number> {
    await this.summarizeNewBatches();
    let folded = 0;
    for (;;) {
      const chunk = await this.transaction((client) => this.foldChunk(client, chunkSize));
      if (chunk === null) return folded;
      folded += chunk;
      if (betweenChunks && !(await betweenChunks())) return folded;
    }
  }

  /**
   * The block-range index learns about pages filled since the last fold. A range not yet
   * summarised matches every lookup, so without this each chunk would read every page
   * written since autovacuum last came by.
   */
  private async summarizeNewBatches(): Promise<void> {
    try {
      await this.transaction(async (client) => {
        // It needs the lock a vacuum holds. Autovacuum gives way to a waiter after
        // deadlock_timeout (1 s by default); a manual or anti-wraparound vacuum would not,
        // and a fold does not wait for one of those.
        await client.query("set local lock_timeout = '2s'");
        await client.query("select brin_summarize_new_values('analytics_hits_batch'::regclass)");
      });
    } catch (error) {
      // Only the index's owner may summarise. Either way folds stay exact, they just read more.
      const code = (error as { code?: string }).code;
      if (code !== INSUFFICIENT_PRIVILEGE && code !== LOCK_NOT_AVAILABLE) throw error;
    }
  }

  /** One transaction: claims about `chunkSize` hits' worth of committed batches and folds them; null when there were none. */
  private async foldChunk(client: pg.PoolClient, chunkSize: number): Promise<number | null> {
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [FOLD_LOCK]);
    const { rows } = await client.query<{ id: number; hits: number }>(CLAIM_BATCHES, [chunkSize]);
    if (rows.length === 0) return null;
    const ids = rows.map((row) => row.id).sort((a, b) => a - b);
    const statements = this.foldSql;
    for (const sql of statements.setup) await client.query(sql);
    // Until autovacuum has analysed a freshly loaded hit table, the planner takes it for
    // small and would scan all of it rather than use the block-range index.
    await client.query('set local enable_seqscan = off');
    await client.query(this.sql(statements.loadHits!), [ids[0]!, ids.at(-1)!, `{${ids.join(',')}}`]);
    await client.query('reset enable_seqscan');
    for (const sql of statements.collectKeys) await client.query(sql);
    // Fresh temporary tables have no statistics; without them the planner guesses badly.
    await client.query('analyze analytics_fold_keys');
    await client.query(statements.describeKeys);
    await client.query('analyze analytics_fold_info');
    const { countLoneVisitors, countVisitors, storeVisitDays, countHits, countPageViews, raiseMaxDays } = statements;
    for (const sql of [countLoneVisitors, countVisitors, storeVisitDays, countHits, countPageViews, raiseMaxDays]) await client.query(sql);
    return rows.reduce((sum, row) => sum + row.hits, 0);
  }

  /**
   * Repeatable read, so every statement of the rebuild sees the same hits; the fold lock is
   * taken for the session before the transaction starts, or the snapshot would predate a
   * fold that committed while it waited.
   */
  async rebuildTransaction<T>(work: (runner: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [FOLD_LOCK]);
      try {
        await client.query('begin isolation level repeatable read');
        try {
          const result = await work({
            dialect: 'postgres',
            all: async <Row>(sql: string, parameters: readonly unknown[] = []) => (await client.query(this.sql(sql), [...parameters])).rows as Row[],
            run: async (sql: string, parameters: readonly unknown[] = []) => (await client.query(this.sql(sql), [...parameters])).rowCount ?? 0,
          });
          await client.query('commit');
          return result;
        } catch (error) {
          await client.query('rollback');
          throw error;
        }
      } finally {
        await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [FOLD_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  async pendingHits(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('select coalesce(sum(hits), 0) as n from analytics_ingest_batches');
    return rows[0]!.n;
  }

  /** See postgres-report-snapshot.ts. */
  read<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    return this.transaction((client) => readSnapshot(client, (text) => this.sql(text), work), 'begin isolation level repeatable read read only');
  }

  async close(): Promise<void> {}

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

  async deleteProjectData(projectId: string, batchRows: number = DELETE_BATCH_ROWS): Promise<DeletedProjectData> {
    const deleted: DeletedProjectData = { ...NOTHING_DELETED };
    deleted.beaconSenders = (await this.pool.query(numberPlaceholders(DELETE_BEACON_SENDERS), [projectId])).rowCount ?? 0;
    const site = await this.siteOf(projectId);
    if (site === null) return deleted;
    // The site's batches not folded yet go first, under the fold lock: a fold running now
    // finishes before, and no later fold claims the site's hits, so once they are deleted
    // nothing writes rollups for the site. A batch holds one site's hits (insertGroup).
    deleted.ingestBatches = await this.transaction(async (client) => {
      await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [FOLD_LOCK]);
      // As in foldChunk: the block-range index, not a scan of every hit, finds a batch.
      await client.query('set local enable_seqscan = off');
      const { rowCount } = await client.query(DELETE_PENDING_BATCHES, [site]);
      return rowCount ?? 0;
    });
    // Each batch is its own statement and transaction, so no lock is held for long.
    for (const table of SITE_TABLES) {
      const statement = this.sql(deleteSiteBatch('postgres', table));
      for (;;) {
        const changes = (await this.pool.query(statement, [site, batchRows])).rowCount ?? 0;
        deleted[table.counter] += changes;
        if (changes < batchRows) break;
      }
    }
    // Last: until here a repeated call can find the site and finish the job.
    deleted.sites = (await this.pool.query(numberPlaceholders(DELETE_SITE), [site])).rowCount ?? 0;
    return deleted;
  }
}

/** Unclaimed batches whose hits are the site's; a batch's hits all belong to one site. */
const DELETE_PENDING_BATCHES = `delete from analytics_ingest_batches b
  where (select h.site from analytics_hits h where h.batch = b.id limit 1) = $1`;

function eventIdKey(site: number, eventId: string): string {
  return `${site}\u0000${eventId}`;
}
