import { randomBytes } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { AI_GROUP, EITHER_GROUP, HUMAN_GROUP, SITE_DIMENSION } from '../analytics-codes.js';
import type { DimensionCount } from '../rollup-queries.js';
import { integerLiteral, raw, sql } from './clickhouse-literal.js';
import type { GenerationMap } from './clickhouse-generations.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';
import { serverCode } from './clickhouse-trouble.js';

/** A finished build of a site's visitor cells (migration 006). */
export interface CellBuild {
  /** The build's id (UInt64, decimal). */
  build: string;
  /** Every hit whose day was stamped in analytics_hit_day_writes before this instant (ms) is in the cells. */
  mark: number;
  /** The first day the cells cover: the raw hits' horizon when they were built. */
  fromDay: number;
  /** The site's latest generation switch when it was built (0: none). */
  switched: number;
  /** It holds exactly the hits written before its mark (migration 007); older builds may hold some after it. */
  exact: boolean;
}

/** A row of analytics_visitor_cell_builds as JSONEachRow gives it (64-bit integers quoted). */
interface BuildRow {
  id: string;
  mark: string;
  from_day: number;
  switched: string;
  exact: number;
}

const buildOf = (row: BuildRow): CellBuild => ({
  build: row.id,
  mark: Number(row.mark),
  fromDay: Number(row.from_day),
  switched: Number(row.switched),
  exact: Number(row.exact) === 1,
});

/**
 * The build columns a report reads. The id aliased `id`: an alias `build` would stand for the
 * string in WHERE and ORDER BY too (ordering builds of one mark as text, not as numbers).
 */
const BUILD_COLUMNS = 'toString(build) AS id, mark, from_day, switched, exact';

/** One (dimension, group) count as JSONEachRow gives it. */
interface CountRow {
  dim: number;
  grp: number;
  visitors: number;
}

/** A site with days stamped after its latest build: `newerDays` of its `days` stamped days; its latest stamp. */
export interface PendingSite {
  site: number;
  newerDays: number;
  days: number;
  written: number;
}

/**
 * Stamps the days a drain is about to write hits of, before it writes them: a build whose
 * mark is later than `written` finds those hits in ClickHouse (the drain took them from the
 * spool before the stamp, and the build drains the spool after taking its mark), and a
 * report knows that a build with an earlier mark may lack them.
 */
export async function stampHitDays(client: ClickHouseClient, target: ClickHouseTarget, site: number, days: Iterable<number>, written: number): Promise<void> {
  const list = [...days].map((day) => integerLiteral(day)).join(', ');
  if (list === '') return;
  await client.command({
    query: sql`INSERT INTO ${raw(readTable(target, 'analytics_hit_day_writes'))} (site, day, written)
      SELECT toUInt32(${site}), toUInt32(day), maxState(toInt64(${written})) FROM system.one ARRAY JOIN [${raw(list)}] AS day GROUP BY day`,
  });
}

/**
 * The (dimension, group) pairs a human or ai hit counts in: its page and the site, each in
 * its class's group and in either.
 */
const CELL_DIMENSIONS = `[(toInt32(page), class), (toInt32(${SITE_DIMENSION}), class), (toInt32(page), toUInt8(${EITHER_GROUP})), (toInt32(${SITE_DIMENSION}), toUInt8(${EITHER_GROUP}))]`;

/**
 * The most days of a range with hits written after the build that a report still answers
 * from the cells plus those hits: a live site's today and yesterday, with a day to spare.
 * More (a bulk load or an import still running) can be millions of hits; the states
 * answer those until the next build.
 */
const FRESH_DAYS_MAX = 3;

/**
 * The most visitors with fresh hits a report looks up beside the cells. A live site has a
 * few thousand since its last build (minutes of traffic); past this (a log import into
 * recent days, before its build) their history costs more than merging the states, which
 * answer instead. ClickHouse stops building the set at this size (set_overflow_mode).
 */
export const FRESH_VISITORS_MAX = 100_000;

/** SET_SIZE_LIMIT_EXCEEDED: the fresh visitors were more than the query allowed. */
const SET_TOO_LARGE = '191';

/**
 * How long a build's statement may run before the server stops it (the long client waits
 * as long): a 10M-hit site builds in about 40 s.
 */
const BUILD_SECONDS_MAX = 3_600;

/**
 * An unrecorded build started this long before a new build's mark is dead: its statement
 * stopped on the server an hour after it started at the latest, so its cells never grow
 * again and are deleted (migration 008). Twice the limit: marks are the processes' clocks.
 */
export const DEAD_BUILD_MS = 2 * BUILD_SECONDS_MAX * 1_000;

/**
 * A build's group-by (one key per generation, group, dimension and visitor: about 37M at
 * 10M hits) spills to disk past this much memory instead of failing at the server's limit,
 * and the statement stops after BUILD_SECONDS_MAX.
 */
const BUILD_SETTINGS = { max_bytes_before_external_group_by: '1000000000', max_execution_time: BUILD_SECONDS_MAX } as const;

/**
 * The visitors report's counts as prev-day cells (docs/analytics.md, "ClickHouse"): built
 * per site in one statement from its raw hits when ingest is quiet, and read by the report
 * only when they are current for its range; otherwise it merges the uniqExact states as
 * before. Both answers are exact; the cells are ~100× cheaper to read at 10M hits
 * (docs/benchmarks.md, "ClickHouse: what a fold into prev-day cells would cost").
 *
 * Why a whole rebuild, not an incremental fold like the SQL backends': ClickHouse has no
 * transactions to apply a fold's changes exactly once, and finding the earlier visit days
 * of a step's visitors scans the whole history whatever the step's size (measured: a
 * 14,000-hit step cost 62 µs per hit). A build is a complete snapshot: two builds racing,
 * or one that died half-way, leave nothing a report reads but finished builds.
 */
export class ClickHouseCellBuilds {
  constructor(
    private readonly client: ClickHouseClient,
    /** A client whose requests may last as long as a build (minutes at 10M hits). */
    private readonly longClient: ClickHouseClient,
    private readonly target: ClickHouseTarget,
    /** Deletes rows (ALTER … DELETE, waited for). */
    private readonly mutate: (table: string, where: string) => Promise<void>,
    /** FRESH_VISITORS_MAX, smaller in tests. */
    private readonly freshVisitorsMax = FRESH_VISITORS_MAX,
  ) {}

  private table(name: string) {
    return raw(readTable(this.target, name));
  }

  /**
   * Sites with a day stamped at or after their latest build's mark (every site with stamps,
   * before a first build): how many such days, of how many stamped days. GLOBAL: on a
   * cluster the marks are read once and sent to every shard.
   */
  async pending(): Promise<PendingSite[]> {
    const rows = await this.rows<{
      site: number;
      newer: string;
      days: string;
      latest: string;
    }>(sql`SELECT site, countIf(written >= mark) AS newer, count() AS days, max(written) AS latest
          FROM (SELECT site, day, maxMerge(written) AS written FROM ${this.table('analytics_hit_day_writes')} GROUP BY site, day)
          GLOBAL ANY LEFT JOIN (SELECT site, max(mark) AS mark FROM ${this.table('analytics_visitor_cell_builds')} GROUP BY site) USING (site)
          GROUP BY site HAVING newer > 0 ORDER BY site`);
    return rows.map((row) => ({ site: Number(row.site), newerDays: Number(row.newer), days: Number(row.days), written: Number(row.latest) }));
  }

  /** The site's latest finished build, or null. */
  async latest(site: number): Promise<CellBuild | null> {
    const [row] = await this.rows<BuildRow>(sql`SELECT ${raw(BUILD_COLUMNS)} FROM ${this.table('analytics_visitor_cell_builds')}
          WHERE site = ${site} ORDER BY mark DESC, build DESC LIMIT 1`);
    return row === undefined ? null : buildOf(row);
  }

  /**
   * Builds the site's cells from its hits of days from `fromDay` on, every generation, that
   * were written before `mark` (all of them are in ClickHouse by then: the caller drained
   * after taking the mark), and records the build once they are all in:
   * a report never reads a build before that row exists. Before it starts, it deletes the
   * cells of builds that died before recording themselves (their start, recorded before the
   * first cell, is older than DEAD_BUILD_MS at this mark), so the leftovers of failed builds
   * go even when every build of the site fails. Once recorded, it deletes the recorded builds
   * before the previous one (a report that chose the previous one may still be reading it).
   */
  async build(site: number, mark: number, fromDay: number, switched: number): Promise<void> {
    const build = randomBytes(8).readBigUInt64BE().toString();
    await this.deleteBuilds(site, await this.deadBuilds(site, mark));
    await this.client.command({
      query: sql`INSERT INTO ${this.table('analytics_visitor_cell_starts')} (site, build, started) VALUES (${site}, toUInt64(${raw(build)}), ${mark})`,
    });
    // Per (generation, group, dimension, visitor) its sorted visit days; each day's previous
    // one (-1: none) makes its cell. Groups: the hit's class (1 human, 2 ai) and 3, either.
    await this.longClient.command({
      query: sql`INSERT INTO ${this.table('analytics_visitor_cells')} (site, build, gen, grp, dim, day, prev, visitors)
        SELECT ${site}, toUInt64(${raw(build)}), gen, grp, dim, day, prev, toUInt32(count()) FROM (
          SELECT gen, toUInt8(tupleElement(dg, 2)) AS grp, toInt32(tupleElement(dg, 1)) AS dim, visitor, arraySort(groupUniqArray(day)) AS days
          FROM ${this.table('analytics_hits')}
          ARRAY JOIN ${raw(CELL_DIMENSIONS)} AS dg
          WHERE site = ${site} AND day >= ${fromDay} AND written < ${mark} AND class IN (${HUMAN_GROUP}, ${AI_GROUP})
          GROUP BY gen, grp, dim, visitor
        ) ARRAY JOIN days AS day, arrayConcat([toInt64(-1)], arrayPopBack(arrayMap(d -> toInt64(d), days))) AS prev
        GROUP BY gen, grp, dim, day, prev`,
      clickhouse_settings: BUILD_SETTINGS,
    });
    await this.client.command({
      query: sql`INSERT INTO ${this.table('analytics_visitor_cell_builds')} (site, build, mark, from_day, switched, at, exact)
        VALUES (${site}, toUInt64(${raw(build)}), ${mark}, ${fromDay}, ${switched}, ${mark}, 1)`,
    });
    // Ordered as latest() orders them: the two a report may be reading come first.
    const recorded = await this.rows<{ id: string }>(
      sql`SELECT toString(build) AS id FROM ${this.table('analytics_visitor_cell_builds')} WHERE site = ${site} ORDER BY mark DESC, build DESC`,
    );
    await this.deleteBuilds(site, recorded.slice(2));
  }

  /**
   * The site's builds that died before recording themselves: no row, and a start older than
   * any build may run at `mark`. Never a build still being written by another process: its
   * start is recent, and deleting its first cells would leave it incomplete once it records
   * itself.
   */
  private deadBuilds(site: number, mark: number): Promise<Array<{ id: string }>> {
    return this.rows<{ id: string }>(
      sql`SELECT toString(build) AS id FROM ${this.table('analytics_visitor_cell_starts')}
        WHERE site = ${site} AND started < ${mark - DEAD_BUILD_MS}
          AND build GLOBAL NOT IN (SELECT build FROM ${this.table('analytics_visitor_cell_builds')} WHERE site = ${site})`,
    );
  }

  /** Deletes the builds' cells, then their rows (a dead build has none), then their starts. */
  private async deleteBuilds(site: number, builds: ReadonlyArray<{ id: string }>): Promise<void> {
    if (builds.length === 0) return;
    const gone = sql`site = ${site} AND build IN (${raw(builds.map((row) => `toUInt64(${BigInt(row.id).toString()})`).join(', '))})`;
    // Cells first: a process stopped half-way leaves the rows that let the next build find them again.
    await this.mutate('analytics_visitor_cells', gone);
    await this.mutate('analytics_visitor_cell_builds', gone);
    await this.mutate('analytics_visitor_cell_starts', gone);
  }

  /**
   * The visitors family's counts (pages and the site; human, ai, either) over whole days
   * [fromDay, toDay) from the site's latest build, or null when it cannot answer for that
   * range: none yet, built from a later day, built before the latest generation switch, or
   * with hits written after its mark on more than FRESH_DAYS_MAX days of the range, or by
   * more than FRESH_VISITORS_MAX visitors.
   *
   * The cells count the visitors of the hits written before the mark. The hits written at or
   * after it (fresh: a live site's last minutes) add each visitor that has only fresh hits in
   * the range for a page and group (freshVisitors). That reads the range's raw hits, so it
   * needs every one of them: `rawFromDay` is the first day retention keeps for certain (null:
   * unknown, and such ranges read the states).
   */
  async visitors(site: number, fromDay: number, toDay: number, map: GenerationMap, rawFromDay: number | null = null): Promise<DimensionCount[] | null> {
    // The latest build and the range's stamped days, side by side. (Not one query: on a
    // cluster, 18.16 loses an array-valued scalar subquery on its way to the shards.)
    const [build, stamps] = await Promise.all([
      this.latest(site),
      this.rows<{ written: string }>(
        sql`SELECT maxMerge(written) AS written FROM ${this.table('analytics_hit_day_writes')}
          WHERE site = ${site} AND day >= ${fromDay} AND day < ${toDay} GROUP BY day`,
      ),
    ]);
    if (build === null || fromDay < build.fromDay || build.switched !== map.latestSwitch()) return null;
    const freshDays = stamps.filter((stamp) => Number(stamp.written) >= build.mark).length;
    const fresh = freshDays > 0;
    if (fresh && (!build.exact || freshDays > FRESH_DAYS_MAX || rawFromDay === null || fromDay < rawFromDay)) return null;
    const [cells, added] = await Promise.all([
      this.rows<CountRow>(
        sql`SELECT dim, grp, toUInt32(sum(visitors)) AS visitors FROM ${this.table('analytics_visitor_cells')}
          WHERE site = ${site} AND build = toUInt64(${raw(BigInt(build.build).toString())}) AND day >= ${fromDay} AND day < ${toDay} AND prev < ${fromDay}
            AND ${raw(map.predicate())} GROUP BY dim, grp`,
      ),
      fresh ? this.freshVisitors(site, fromDay, toDay, build.mark, map) : Promise.resolve([]),
    ]);
    if (added === null) return null;
    const counts = new Map<string, DimensionCount>();
    for (const { dim, grp, visitors } of [...cells, ...added]) {
      const key = `${dim}/${grp}`;
      const count = counts.get(key) ?? { dim: Number(dim), grp: Number(grp), visitors: 0 };
      count.visitors += Number(visitors);
      counts.set(key, count);
    }
    return [...counts.values()].filter((count) => count.visitors > 0);
  }

  /**
   * Per (dimension, group), the visitors whose hits in [fromDay, toDay) were all written at
   * or after `mark`: the ones the build's cells do not count. One read of the range's raw
   * hits, of the visitors with a fresh hit only (the table is ordered by site and day; they
   * are expanded into dimensions after that filter). The hits written before the mark do not
   * change after the build, so each visitor the inner query finds is judged on all its hits;
   * one whose first fresh hit is written while the query runs is left out whole, as if asked
   * a moment earlier. GLOBAL: on a cluster the fresh visitors are found once, on the node
   * asking, and sent to every shard.
   */
  private async freshVisitors(site: number, fromDay: number, toDay: number, mark: number, map: GenerationMap): Promise<CountRow[] | null> {
    const hits = this.table('analytics_hits');
    const range = sql`site = ${site} AND day >= ${fromDay} AND day < ${toDay} AND class IN (${HUMAN_GROUP}, ${AI_GROUP}) AND ${raw(map.predicate())}`;
    const query = sql`SELECT dim, grp, toUInt32(countIf(only_fresh = 1)) AS visitors FROM (
          SELECT toInt32(tupleElement(dg, 1)) AS dim, toUInt8(tupleElement(dg, 2)) AS grp, visitor, min(written >= ${mark}) AS only_fresh
          FROM (SELECT page, class, visitor, written FROM ${hits} WHERE ${raw(range)}
            AND visitor GLOBAL IN (SELECT visitor FROM ${hits} WHERE ${raw(range)} AND written >= ${mark}))
          ARRAY JOIN ${raw(CELL_DIMENSIONS)} AS dg
          GROUP BY dim, grp, visitor
        ) GROUP BY dim, grp`;
    try {
      const result = await this.client.query({
        query,
        format: 'JSONEachRow',
        clickhouse_settings: { max_rows_in_set: String(this.freshVisitorsMax), set_overflow_mode: 'throw' },
      });
      return await result.json<CountRow>();
    } catch (error) {
      if (error instanceof Error && serverCode(error) === SET_TOO_LARGE) return null;
      throw error;
    }
  }

  private async rows<Row>(query: string): Promise<Row[]> {
    return (await this.client.query({ query, format: 'JSONEachRow' })).json<Row>();
  }
}
