import type { ClickHouseClient } from '@clickhouse/client';
import { AI_GROUP, ANY_GROUP, EITHER_GROUP, HUMAN_GROUP, SITE_DIMENSION } from '../analytics-codes.js';
import type { PageViewCount } from '../page-view-queries.js';
import type { RangeCounter } from '../range-counts.js';
import { clickHouseHits, type HitSql } from '../reports/hit-sql.js';
import type { RangePlan } from '../range-plan.js';
import type { DayCount, DimensionCount, Family, HitCount } from '../rollup-queries.js';
import { raw, sql } from './clickhouse-literal.js';
import type { ClickHouseCellBuilds } from './clickhouse-cell-builds.js';
import type { GenerationSource } from './clickhouse-generations.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';

/**
 * The (dimension, group) pairs a hit counts in, as the analytics_visitor_gen_days_mv of
 * migration 001 computes them (see there): the parts of days a range cuts off are
 * counted from raw hits with the same expression.
 */
const HIT_DIMENSIONS = `arrayFilter(x -> tupleElement(x, 3) = 1, [
  (toInt32(page), toUInt8(class), class <= 2), (toInt32(0), toUInt8(class), class <= 2),
  (-toInt32(class), toUInt8(4), class >= 3), (toInt32(agent), toUInt8(4), agent != 0)
]) AS dg`;
const DIM = 'toInt32(tupleElement(dg, 1))';
const GRP = 'toUInt8(tupleElement(dg, 2))';

/**
 * visitors: pages and the site in groups human and ai (either is their merge). traffic:
 * group any, plus the site's human and ai.
 */
const FAMILY_FILTER: Record<Family, string> = {
  visitors: 'grp IN (1, 2)',
  traffic: `(grp = ${ANY_GROUP} OR (dim = ${SITE_DIMENSION} AND grp IN (1, 2)))`,
};

/**
 * Range counts over ClickHouse: whole days from the uniqExact states of the rollups, the
 * parts of days a date-time bound cuts off from raw hits as states too, and one
 * uniqExactMerge over both, so a visitor seen in both counts once. Exact by construction:
 * no approximate function is used anywhere. The visitors family over whole days reads the
 * visitor cells instead while they are current for the range (clickhouse-cell-builds.ts).
 */
export class ClickHouseRangeCounter implements RangeCounter {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly target: ClickHouseTarget,
    private readonly generations: GenerationSource,
    /** Visitor cells, read instead of the states when current for a range of whole days; none: always the states. */
    private readonly cells: ClickHouseCellBuilds | null = null,
  ) {}

  /** Rows of the generation answering for their day (clickhouse-generations.ts): every row of a site is counted in exactly one generation. */
  private async live(site: number) {
    return raw((await this.generations.of(site)).predicate());
  }

  private table(name: string) {
    return raw(readTable(this.target, name));
  }

  private edges(plan: RangePlan) {
    return raw(plan.edges.map((edge) => sql`(at >= ${edge.start} AND at < ${edge.end})`).join(' OR '));
  }

  private async rows<Row>(query: string): Promise<Row[]> {
    return (await this.client.query({ query, format: 'JSONEachRow' })).json<Row>();
  }

  async countVisitors(site: number, plan: RangePlan, family: Family): Promise<DimensionCount[]> {
    if (family === 'visitors' && this.cells !== null && plan.edges.length === 0 && plan.fromDay < plan.toDay) {
      const counts = await this.cells.visitors(site, plan.fromDay, plan.toDay, await this.generations.of(site), plan.rawFromDay ?? null);
      if (counts !== null) return counts;
    }
    const filter = raw(FAMILY_FILTER[family]);
    const live = await this.live(site);
    const parts: string[] = [];
    if (plan.fromDay < plan.toDay) {
      parts.push(sql`SELECT dim, grp, visitors AS s FROM ${this.table('analytics_visitor_gen_days')}
        WHERE site = ${site} AND day >= ${plan.fromDay} AND day < ${plan.toDay} AND ${filter} AND ${live}`);
    }
    if (plan.edges.length > 0) {
      parts.push(sql`SELECT ${raw(DIM)} AS dim, ${raw(GRP)} AS grp, uniqExactState(visitor) AS s
        FROM ${this.table('analytics_hits')} ARRAY JOIN ${raw(HIT_DIMENSIONS)}
        WHERE site = ${site} AND (${this.edges(plan)}) AND ${filter} AND ${live} GROUP BY dim, grp`);
    }
    if (parts.length === 0) return [];
    const rows = await this.rows<{ dim: number; human: number; ai: number; either: number; any: number }>(
      `SELECT dim, toUInt32(uniqExactMergeIf(s, grp = ${HUMAN_GROUP})) AS human, toUInt32(uniqExactMergeIf(s, grp = ${AI_GROUP})) AS ai,
        toUInt32(uniqExactMergeIf(s, grp IN (${HUMAN_GROUP}, ${AI_GROUP}))) AS either, toUInt32(uniqExactMergeIf(s, grp = ${ANY_GROUP})) AS any
      FROM (${parts.join(' UNION ALL ')}) GROUP BY dim`,
    );
    const counts: DimensionCount[] = [];
    for (const row of rows) {
      const dim = Number(row.dim);
      const groups: Array<[number, number]> = [
        [HUMAN_GROUP, Number(row.human)],
        [AI_GROUP, Number(row.ai)],
        [EITHER_GROUP, family === 'visitors' ? Number(row.either) : 0],
        [ANY_GROUP, Number(row.any)],
      ];
      for (const [grp, visitors] of groups) if (visitors > 0) counts.push({ dim, grp, visitors });
    }
    return counts;
  }

  async countHits(site: number, plan: RangePlan): Promise<HitCount[]> {
    const live = await this.live(site);
    const parts: string[] = [];
    if (plan.fromDay < plan.toDay) {
      parts.push(sql`SELECT class, agent, hits AS s FROM ${this.table('analytics_hit_gen_days')}
        WHERE site = ${site} AND day >= ${plan.fromDay} AND day < ${plan.toDay} AND ${live}`);
    }
    if (plan.edges.length > 0) {
      parts.push(sql`SELECT class, agent, uniqExactState(event_id, nonce) AS s FROM ${this.table('analytics_hits')}
        WHERE site = ${site} AND (${this.edges(plan)}) AND ${live} GROUP BY class, agent`);
    }
    if (parts.length === 0) return [];
    const rows = await this.rows<HitCount>(
      `SELECT class AS classCode, agent, toUInt32(uniqExactMerge(s)) AS hits FROM (${parts.join(' UNION ALL ')}) GROUP BY class, agent`,
    );
    return rows.map((row) => ({ classCode: Number(row.classCode), agent: Number(row.agent), hits: Number(row.hits) }));
  }

  async countPageViews(site: number, plan: RangePlan): Promise<PageViewCount[]> {
    const live = await this.live(site);
    const parts: string[] = [];
    if (plan.fromDay < plan.toDay) {
      parts.push(sql`SELECT page, class, hits AS s FROM ${this.table('analytics_page_view_gen_days')}
        WHERE site = ${site} AND day >= ${plan.fromDay} AND day < ${plan.toDay} AND ${live}`);
    }
    if (plan.edges.length > 0) {
      parts.push(sql`SELECT page, class, uniqExactState(event_id, nonce) AS s FROM ${this.table('analytics_hits')}
        WHERE site = ${site} AND (${this.edges(plan)}) AND class <= 2 AND ${live} GROUP BY page, class`);
    }
    if (parts.length === 0) return [];
    const rows = await this.rows<PageViewCount>(
      `SELECT page, class AS classCode, toUInt32(uniqExactMerge(s)) AS hits FROM (${parts.join(' UNION ALL ')}) GROUP BY page, class`,
    );
    return rows.map((row) => ({ page: Number(row.page), classCode: Number(row.classCode), hits: Number(row.hits) }));
  }

  async selectHits<Row>(site: number, query: (dialect: HitSql) => string): Promise<Row[]> {
    return this.rows<Row>(query(clickHouseHits(readTable(this.target, 'analytics_hits'), (await this.live(site)).text)));
  }

  async countDaily(site: number, plan: RangePlan): Promise<DayCount[]> {
    interface Row {
      day: number;
      human: number;
      ai: number;
      either: number;
    }
    const live = await this.live(site);
    const rows: Row[] = [];
    if (plan.fromDay < plan.toDay) {
      rows.push(
        ...(await this.rows<Row>(sql`SELECT day, toUInt32(uniqExactMergeIf(visitors, grp = 1)) AS human, toUInt32(uniqExactMergeIf(visitors, grp = 2)) AS ai,
            toUInt32(uniqExactMerge(visitors)) AS either
          FROM ${this.table('analytics_visitor_gen_days')}
          WHERE site = ${site} AND dim = 0 AND grp IN (1, 2) AND day >= ${plan.fromDay} AND day < ${plan.toDay} AND ${live} GROUP BY day`)),
      );
    }
    if (plan.edges.length > 0) {
      // A cut-off part counts only itself; an edge spanning midnight is two days' parts.
      rows.push(
        ...(await this.rows<Row>(sql`SELECT day, toUInt32(uniqExactIf(visitor, class = 1)) AS human, toUInt32(uniqExactIf(visitor, class = 2)) AS ai,
            toUInt32(uniqExact(visitor)) AS either
          FROM ${this.table('analytics_hits')} WHERE site = ${site} AND (${this.edges(plan)}) AND class <= 2 AND ${live} GROUP BY day`)),
      );
    }
    return rows.flatMap((row) => [
      { day: Number(row.day), grp: HUMAN_GROUP, visitors: Number(row.human) },
      { day: Number(row.day), grp: AI_GROUP, visitors: Number(row.ai) },
      { day: Number(row.day), grp: EITHER_GROUP, visitors: Number(row.either) },
    ]);
  }
}
