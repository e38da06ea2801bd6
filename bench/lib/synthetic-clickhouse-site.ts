import type { ClickHouseTarget } from '../../src/analytics/clickhouse/clickhouse-migrations.js';

// One synthetic site for the ClickHouse engine experiments (clickhouse-engine-visitors.ts,
// clickhouse-fold-experiment.ts): hits over 30 days, 1M visitors (85 % human, 15 % ai),
// 5,000 pages with a skewed popularity, generated inside ClickHouse by INSERT … SELECT …
// FROM numbers() so a 10M-hit load takes seconds, not a client's minutes.

export const DAY = 86_400_000;
export const FIRST_DAY = 20_700;
export const DAYS = 30;
export const SITE = 1;
export const VISITORS = 1_000_000;
export const PAGES = 5_000;
/** Rows per INSERT of the load. */
export const BLOCK = 1_000_000;

/**
 * One block of synthetic hits. Visitor v makes about hits / 1M hits; its class is fixed
 * (v % 100 < 85: human). A page is 1 + floor(u³ × 5,000) for a uniform u: page 1 is the
 * most read, the tail long.
 */
export function insertSyntheticBlock(target: ClickHouseTarget, offset: number, count: number): string {
  const n = `(number + ${offset})`;
  const visitor = `(intHash32(${n} * 3 + 1) % ${VISITORS})`;
  const day = `(${FIRST_DAY} + intHash32(${n} * 5 + 2) % ${DAYS})`;
  return `INSERT INTO ${target.database}.analytics_hits (site, at, day, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, event_id, nonce)
    SELECT ${SITE}, toInt64(${day}) * ${DAY} + intHash32(${n} * 7 + 3) % ${DAY}, ${day},
      toInt32(1 + floor(pow((intHash32(${n} * 11 + 4) % 1000000) / 1000000, 3) * ${PAGES})),
      toInt64(${visitor}) + 1, if(${visitor} % 100 < 85, 1, 2), 0, 0, NULL, 0, 1, '', ${n}
    FROM numbers(${count})`;
}

/**
 * The (dimension, group, visitor, day) keys of the visitors report in the hits matching
 * `where`: pages and the site (0), in the hit's class (1 human, 2 ai) and in "either" (3).
 */
export function visitorsKeys(target: ClickHouseTarget, where: string): string {
  return [`page AS dim, class AS grp`, `toInt32(0) AS dim, class AS grp`, `page AS dim, toUInt8(3) AS grp`, `toInt32(0) AS dim, toUInt8(3) AS grp`]
    .map((select) => `SELECT ${select}, visitor, day FROM ${target.database}.analytics_hits WHERE site = ${SITE} AND class <= 2 AND (${where})`)
    .join(' UNION ALL ');
}
