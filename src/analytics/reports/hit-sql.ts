/**
 * The dialect of the reports over raw hits (agents, pages, agent 4xx): the same query
 * text for SQLite, PostgreSQL and ClickHouse, with the few expressions that differ.
 * Values are integers only (site, instants, codes), written as checked literals, so the
 * queries take no parameters and cannot carry a string into SQL.
 */
export interface HitSql {
  /** The raw-hit table to read. */
  readonly hits: string;
  /**
   * The rows of the table that count: every row on SQL; on ClickHouse those of the
   * generation answering for their day (a reclassification writes a site's hits again
   * under a new generation, clickhouse-generations.ts).
   */
  readonly live: string;
  /** Hits counted: every row on SQL; on ClickHouse unique (event_id, nonce), as its rollups count them. */
  count(): string;
  countIf(condition: string): string;
  distinct(expression: string): string;
  distinctIf(expression: string, condition: string): string;
}

/** A safe integer as SQL text; anything else is a programming error. */
export function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not a safe integer: ${String(value)}`);
  return String(value);
}

export const SQL_HITS: HitSql = {
  hits: 'analytics_hits',
  live: '1 = 1',
  count: () => 'count(*)',
  countIf: (condition) => `sum(case when ${condition} then 1 else 0 end)`,
  distinct: (expression) => `count(distinct ${expression})`,
  distinctIf: (expression, condition) => `count(distinct case when ${condition} then ${expression} end)`,
};

export function clickHouseHits(table: string, live: string): HitSql {
  return {
    hits: table,
    live,
    count: () => 'uniqExact(event_id, nonce)',
    countIf: (condition) => `uniqExactIf(event_id, nonce, ${condition})`,
    distinct: (expression) => `uniqExact(${expression})`,
    distinctIf: (expression, condition) => `uniqExactIf(${expression}, ${condition})`,
  };
}

/** Hits of one site in [from, to), ms since the epoch, that count. */
export function inRange(dialect: HitSql, site: number, from: number, to: number): string {
  return `site = ${int(site)} and at >= ${int(from)} and at < ${int(to)} and ${dialect.live}`;
}
