import { randomBytes } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { AI_GROUP, EITHER_GROUP, HUMAN_GROUP, SITE_DIMENSION } from '../analytics-codes.js';
import type { DimensionCount } from '../rollup-queries.js';
import { integerLiteral, raw, sql } from './clickhouse-literal.js';
import type { GenerationMap } from './clickhouse-generations.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';

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
}

/** A row of analytics_visitor_cell_builds as JSONEachRow gives it (64-bit integers quoted). */
interface BuildRow {
  build: string;
  mark: string;
  from_day: number;
  switched: string;
}

const buildOf = (row: BuildRow): CellBuild => ({ build: row.build, mark: Number(row.mark), fromDay: Number(row.from_day), switched: Number(row.switched) });

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
 * The most days after a build a report answers from raw hits beside its cells: a live
 * site's today and yesterday, with a day to spare. Beyond that (a late import of older
 * days, a bulk load still running) the states answer until the next build.
 */
const RECENT_DAYS_MAX = 3;

/**
 * A build's group-by (one key per generation, group, dimension and visitor: about 37M at
 * 10M hits) spills to disk past this much memory instead of failing at the server's limit.
 */
const BUILD_SETTINGS = { max_bytes_before_external_group_by: '1000000000' } as const;

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
    const rows = await (
      await this.client.query({
        query: sql`SELECT site, countIf(written >= mark) AS newer, count() AS days, max(written) AS latest
          FROM (SELECT site, day, maxMerge(written) AS written FROM ${this.table('analytics_hit_day_writes')} GROUP BY site, day)
          GLOBAL ANY LEFT JOIN (SELECT site, max(mark) AS mark FROM ${this.table('analytics_visitor_cell_builds')} GROUP BY site) USING (site)
          GROUP BY site HAVING newer > 0 ORDER BY site`,
        format: 'JSONEachRow',
      })
    ).json<{ site: number; newer: string; days: string; latest: string }>();
    return rows.map((row) => ({ site: Number(row.site), newerDays: Number(row.newer), days: Number(row.days), written: Number(row.latest) }));
  }

  /** The site's latest finished build, or null. */
  async latest(site: number): Promise<CellBuild | null> {
    const [row] = await (
      await this.client.query({
        query: sql`SELECT toString(build) AS build, mark, from_day, switched FROM ${this.table('analytics_visitor_cell_builds')}
          WHERE site = ${site} ORDER BY mark DESC, build DESC LIMIT 1`,
        format: 'JSONEachRow',
      })
    ).json<BuildRow>();
    return row === undefined ? null : buildOf(row);
  }

  /**
   * Builds the site's cells from its hits of days from `fromDay` on, every generation (with
   * at least every hit stamped before `mark`), and records the build once they are all in:
   * a report never reads a build before that row exists. Then deletes the cells of recorded
   * builds before the previous one (a report that chose the previous one may still be
   * reading it). Cells of a build that died before recording itself stay until the
   * project's data is deleted: never read, and rare.
   */
  async build(site: number, mark: number, fromDay: number, switched: number): Promise<void> {
    const build = randomBytes(8).readBigUInt64BE().toString();
    // Per (generation, group, dimension, visitor) its sorted visit days; each day's previous
    // one (-1: none) makes its cell. Groups: the hit's class (1 human, 2 ai) and 3, either.
    await this.longClient.command({
      query: sql`INSERT INTO ${this.table('analytics_visitor_cells')} (site, build, gen, grp, dim, day, prev, visitors)
        SELECT ${site}, toUInt64(${raw(build)}), gen, grp, dim, day, prev, toUInt32(count()) FROM (
          SELECT gen, toUInt8(tupleElement(dg, 2)) AS grp, toInt32(tupleElement(dg, 1)) AS dim, visitor, arraySort(groupUniqArray(day)) AS days
          FROM ${this.table('analytics_hits')}
          ARRAY JOIN ${raw(CELL_DIMENSIONS)} AS dg
          WHERE site = ${site} AND day >= ${fromDay} AND class IN (${HUMAN_GROUP}, ${AI_GROUP})
          GROUP BY gen, grp, dim, visitor
        ) ARRAY JOIN days AS day, arrayConcat([toInt64(-1)], arrayPopBack(arrayMap(d -> toInt64(d), days))) AS prev
        GROUP BY gen, grp, dim, day, prev`,
      clickhouse_settings: BUILD_SETTINGS,
    });
    await this.client.command({
      query: sql`INSERT INTO ${this.table('analytics_visitor_cell_builds')} (site, build, mark, from_day, switched, at)
        VALUES (${site}, toUInt64(${raw(build)}), ${mark}, ${fromDay}, ${switched}, ${mark})`,
    });
    // Only recorded builds: another process's build still being written has no row yet, and
    // deleting its first cells would leave it incomplete once it records itself.
    const recorded = await (
      await this.client.query({
        query: sql`SELECT toString(build) AS build FROM ${this.table('analytics_visitor_cell_builds')} WHERE site = ${site} ORDER BY mark DESC, build DESC`,
        format: 'JSONEachRow',
      })
    ).json<{ build: string }>();
    const superseded = recorded.slice(2).map((row) => `toUInt64(${BigInt(row.build).toString()})`);
    if (superseded.length === 0) return;
    const older = sql`site = ${site} AND build IN (${raw(superseded.join(', '))})`;
    await this.mutate('analytics_visitor_cells', older);
    await this.mutate('analytics_visitor_cell_builds', older);
  }

  /**
   * The visitors family's counts (pages and the site; human, ai, either) over whole days
   * [fromDay, toDay) from the site's latest build, or null when it cannot answer for that
   * range: none yet, built from a later day, built before the latest generation switch, or
   * a day stamped at or after its mark that is not among the range's last
   * RECENT_DAYS_MAX days.
   *
   * Days stamped after the build (a live site's today, maybe yesterday) are answered from
   * their raw hits: with B the first such day of the range, every day before B is whole in
   * the build, so the cells count the visitors of [fromDay, B), and the raw hits of
   * [B, toDay) add the visitors they hold that [fromDay, B) has not (recentVisitors). That
   * needs the raw hits of every day of the range: `rawFromDay`, the first day retention
   * keeps for certain (null: unknown, no raw hits read).
   */
  async visitors(site: number, fromDay: number, toDay: number, map: GenerationMap, rawFromDay: number | null = null): Promise<DimensionCount[] | null> {
    // The latest build and the range's stamped days, side by side. (Not one query: on a
    // cluster, 18.16 loses an array-valued scalar subquery on its way to the shards.)
    const [[row], stamps] = await Promise.all([
      this.rows<BuildRow>(
        sql`SELECT toString(build) AS build, mark, from_day, switched FROM ${this.table('analytics_visitor_cell_builds')}
          WHERE site = ${site} ORDER BY mark DESC, build DESC LIMIT 1`,
      ),
      this.rows<{ day: number; written: string }>(
        sql`SELECT day, maxMerge(written) AS written FROM ${this.table('analytics_hit_day_writes')}
          WHERE site = ${site} AND day >= ${fromDay} AND day < ${toDay} GROUP BY day`,
      ),
    ]);
    const build = row === undefined ? null : buildOf(row);
    if (build === null || fromDay < build.fromDay || build.switched !== map.latestSwitch()) return null;
    let recentFrom = toDay;
    for (const { day, written } of stamps) if (Number(written) >= build.mark) recentFrom = Math.min(recentFrom, Number(day));
    if (recentFrom < toDay && (recentFrom <= fromDay || toDay - recentFrom > RECENT_DAYS_MAX || rawFromDay === null || fromDay < rawFromDay)) return null;
    const [cells, recent] = await Promise.all([
      this.rows<{ dim: number; grp: number; visitors: number }>(
        sql`SELECT dim, grp, toUInt32(sum(visitors)) AS visitors FROM ${this.table('analytics_visitor_cells')}
          WHERE site = ${site} AND build = toUInt64(${raw(BigInt(build.build).toString())}) AND day >= ${fromDay} AND day < ${recentFrom} AND prev < ${fromDay}
            AND ${raw(map.predicate())} GROUP BY dim, grp`,
      ),
      recentFrom < toDay ? this.recentVisitors(site, fromDay, recentFrom, toDay, map) : Promise.resolve([]),
    ]);
    // A hit of a day before B written while the raw hits were read is in neither the cells
    // nor the answer: its day was stamped before it was written, so look again.
    if (recentFrom < toDay && (await this.newestStamp(site, fromDay, recentFrom)) >= build.mark) return null;
    const counts = new Map<string, DimensionCount>();
    for (const part of [cells, recent]) {
      for (const { dim, grp, visitors } of part) {
        const key = `${dim}/${grp}`;
        const count = counts.get(key) ?? { dim: Number(dim), grp: Number(grp), visitors: 0 };
        count.visitors += Number(visitors);
        counts.set(key, count);
      }
    }
    return [...counts.values()].filter((count) => count.visitors > 0);
  }

  /**
   * Per (dimension, group), the visitors with hits in [recentFrom, toDay) and none in
   * [fromDay, recentFrom): what the days after a build add to its cells. The earlier days
   * are scanned only for the recent days' visitors (the table is ordered by site and day),
   * and expanded into dimensions after that filter. GLOBAL: on a cluster each set is made
   * once, on the node asking, and sent to every shard.
   */
  private recentVisitors(site: number, fromDay: number, recentFrom: number, toDay: number, map: GenerationMap) {
    const hits = this.table('analytics_hits');
    const live = raw(map.predicate());
    const pairs = (from: number, to: number, filter: string) =>
      sql`SELECT toInt32(tupleElement(dg, 1)) AS dim, toUInt8(tupleElement(dg, 2)) AS grp, visitor FROM (
          SELECT page, class, visitor FROM ${hits} WHERE site = ${site} AND day >= ${from} AND day < ${to} AND class IN (${HUMAN_GROUP}, ${AI_GROUP}) AND ${live}${raw(filter)}
        ) ARRAY JOIN ${raw(CELL_DIMENSIONS)} AS dg`;
    const recentSet = sql`SELECT visitor FROM ${hits} WHERE site = ${site} AND day >= ${recentFrom} AND day < ${toDay} AND class IN (${HUMAN_GROUP}, ${AI_GROUP}) AND ${live}`;
    return this.rows<{ dim: number; grp: number; visitors: number }>(
      sql`SELECT dim, grp, toUInt32(count()) AS visitors FROM (SELECT DISTINCT dim, grp, visitor FROM (${raw(pairs(recentFrom, toDay, ''))}))
        WHERE (dim, grp, visitor) GLOBAL NOT IN (${raw(pairs(fromDay, recentFrom, ` AND visitor GLOBAL IN (${recentSet})`))})
        GROUP BY dim, grp`,
    );
  }

  /** The latest stamp of the site's days [fromDay, toDay), or 0. */
  private async newestStamp(site: number, fromDay: number, toDay: number): Promise<number> {
    const [row] = await this.rows<{ newest: string }>(
      sql`SELECT maxMerge(written) AS newest FROM ${this.table('analytics_hit_day_writes')} WHERE site = ${site} AND day >= ${fromDay} AND day < ${toDay}`,
    );
    return Number(row?.newest ?? 0);
  }

  private async rows<Row>(query: string): Promise<Row[]> {
    return (await this.client.query({ query, format: 'JSONEachRow' })).json<Row>();
  }
}
