import type pg from 'pg';
import type { Database } from '../db/database.js';
import type { AnalyticsStore, HitBatch, InsertHitsResult, PruneCounts } from './analytics-store.js';
import { foldStatements } from './fold-statements.js';
import { pruneStatements } from './prune-statements.js';
import { integerArrayLiteral, textArrayLiteral } from './postgres-array-literal.js';
import { createGroupCommit, type GroupCommit } from './group-commit.js';

/** `?` placeholders (shared SQL) to PostgreSQL's `$1, $2…`. The shared SQL has no `?` inside literals. */
export function numberPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

// Ingest takes this lock for its whole transaction, so sequence numbers are handed out in
// commit order: a fold that has seen seq N has seen every hit below N, and its folded
// mark never skips a hit that commits late.
const INGEST_LOCK = 'docwright:analytics:ingest';
const FOLD_LOCK = 'docwright:analytics:fold';

const INSERT_HITS = `insert into analytics_hits
  (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version)
  select site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version
  from unnest($1::integer[], $2::bigint[], $3::integer[], $4::bigint[], $5::smallint[], $6::integer[], $7::integer[], $8::text[], $9::smallint[], $10::integer[])
    as given (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version)`;

/** Batches written in one transaction at most, and their hits. */
const GROUP_MAX_BATCHES = 16;
const GROUP_MAX_HITS = 16_000;

/** PostgreSQL storage: one round trip per batch (unnest arrays), locks for the orderings that matter. */
export class PostgresAnalyticsStore implements AnalyticsStore {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly foldSql = foldStatements('postgres');
  private readonly converted = new Map<string, string>();

  /**
   * Ingest transactions hold one lock (see INGEST_LOCK), so this process's concurrent
   * batches would only queue for it: instead they are written together, one transaction
   * per group, sharing its round trips and its commit.
   */
  private readonly insertGrouped: GroupCommit<HitBatch, InsertHitsResult>;

  constructor(database: Database) {
    if (database.raw.dialect !== 'postgres') throw new Error('PostgresAnalyticsStore needs a PostgreSQL database');
    this.pool = database.raw.pool;
    this.insertGrouped = createGroupCommit({
      commit: (batches) => this.insertGroup(batches),
      maxItems: GROUP_MAX_BATCHES,
      maxWeight: GROUP_MAX_HITS,
      weightOf: (batch) => batch.count,
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

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
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
      await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [INGEST_LOCK]);
      const kept: Array<{ batch: HitBatch; index: number }> = [];
      const results: InsertHitsResult[] = [];
      for (const batch of batches) {
        let keep = Array.from({ length: batch.count }, (_, index) => index);
        const withIds = keep.filter((index) => batch.eventId[index] !== null);
        if (withIds.length > 0) {
          // An id stored by an earlier batch of this group conflicts here, as it would have after its commit.
          const { rows: inserted } = await client.query<{ event_id: string }>(
            `insert into analytics_event_ids (site, event_id, at)
             select $1, id, at from unnest($2::text[], $3::bigint[]) as given (id, at) on conflict do nothing returning event_id`,
            [batch.site, textArrayLiteral(withIds, (index) => batch.eventId[index] ?? null), integerArrayLiteral(withIds, (index) => batch.at[index]!)],
          );
          // Only the first row carrying a newly stored id is kept: later ones in the same batch are retries too.
          const fresh = new Set(inserted.map((row) => row.event_id));
          keep = keep.filter((index) => {
            const eventId = batch.eventId[index];
            return eventId === null || eventId === undefined || fresh.delete(eventId);
          });
        }
        for (const index of keep) kept.push({ batch, index });
        results.push({ stored: keep.length, duplicates: batch.count - keep.length });
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
    });
  }

  async fold(chunkSize: number, betweenChunks?: () => Promise<boolean>): Promise<number> {
    let folded = 0;
    for (;;) {
      const chunk = await this.transaction((client) => this.foldChunk(client, chunkSize));
      if (chunk === null) return folded;
      folded += chunk;
      if (betweenChunks && !(await betweenChunks())) return folded;
    }
  }

  private async foldChunk(client: pg.PoolClient, chunkSize: number): Promise<number | null> {
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [FOLD_LOCK]);
    const state = await client.query<{ value: number }>("select value from analytics_state where name = 'folded_seq'");
    const from = state.rows[0]!.value;
    const last = (await client.query<{ seq: number }>('select coalesce(max(seq), 0) as seq from analytics_hits')).rows[0]!.seq;
    if (last <= from) return null;
    const to = Math.min(last, from + chunkSize);
    const statements = this.foldSql;
    for (const sql of statements.setup) await client.query(sql);
    for (const sql of statements.collectKeys) await client.query(this.sql(sql), [from, to]);
    // Fresh temporary tables have no statistics; without them the planner guesses badly.
    await client.query('analyze analytics_fold_keys');
    await client.query(statements.describeKeys);
    await client.query('analyze analytics_fold_info');
    await client.query(statements.countLoneVisitors);
    await client.query(statements.countVisitors);
    await client.query(statements.storeVisitDays);
    await client.query(this.sql(statements.countHits), [from, to]);
    await client.query(statements.raiseMaxDays);
    await client.query("update analytics_state set value = $1 where name = 'folded_seq'", [to]);
    const counted = await client.query<{ n: number }>('select count(*) as n from analytics_hits where seq > $1 and seq <= $2', [from, to]);
    return counted.rows[0]!.n;
  }

  async pendingHits(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      "select count(*) as n from analytics_hits where seq > (select value from analytics_state where name = 'folded_seq')",
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
