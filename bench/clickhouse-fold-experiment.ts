/**
 * `node --import tsx bench/clickhouse-fold-experiment.ts [--hits N] [--runs K] [--fresh-minutes M]`:
 * what a fold of the visitors rollups into prev-day cells (the SQL backends' design,
 * docs/analytics.md "Why counts are exact") would cost on Debian's clickhouse-server 18.16,
 * before building one. Over the synthetic site of clickhouse-engine-visitors.ts (N hits,
 * default 10M, over 30 days), the hits of the last M minutes (default 60) are "fresh", the
 * rest folded. It times:
 *
 * 1. a bulk fold of the folded hits: their visit days (one row per dimension, group,
 *    visitor and day, kept in visitor order with small index granules so that a few
 *    thousand visitors are found by the primary key), then the cells from the visit days;
 * 2. the visitors query (30 whole days) from the cells plus the fresh hits' visitors, less
 *    those already holding a folded visit day in the range (an anti-join on the visit days
 *    of the fresh visitors only);
 * 3. a fold step of the fresh hits: per (dimension, group, visitor) the sorted visit days
 *    before and after, +1 for every cell of the new list and −1 for every cell of the old
 *    (unchanged cells cancel), summed into the cells; then the query from cells alone;
 *
 * and checks that every answer equals today's (ClickHouseRangeCounter.countVisitors).
 * Nothing here is a production path: it measures whether the design could meet the suite's
 * ≤ 300 ms at 10M, and what folding costs ClickHouse.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { ClickHouseGenerations } from '../src/analytics/clickhouse/clickhouse-generations.js';
import { migrateClickHouse, type ClickHouseTarget } from '../src/analytics/clickhouse/clickhouse-migrations.js';
import { ClickHouseRangeCounter } from '../src/analytics/clickhouse/clickhouse-range-counter.js';
import { planRange } from '../src/analytics/range-plan.js';
import { ManualClock } from '../src/core/clock.js';
import { startClickHouse } from '../test/helpers/clickhouse-server.js';
import { percentile } from './lib/percentiles.js';
import { BLOCK, DAY, DAYS, FIRST_DAY, insertSyntheticBlock, SITE, visitorsKeys } from './lib/synthetic-clickhouse-site.js';

const { values } = parseArgs({
  options: { hits: { type: 'string', default: '10000000' }, runs: { type: 'string', default: '7' }, 'fresh-minutes': { type: 'string', default: '60' } },
});
const hits = Number(values.hits);
const runs = Number(values.runs);
const END = FIRST_DAY + DAYS;
/** Hits at or after this instant are fresh (not folded yet). */
const CUT = END * DAY - Number(values['fresh-minutes']) * 60_000;

/** Large group-bys of 18.16 pass its default 10 GB limit per query at 10M; past 4 GB they spill to disk. */
const BIG = { max_memory_usage: '12000000000', max_bytes_before_external_group_by: '4000000000' } as const;

interface Row {
  dim: number;
  grp: number;
  visitors: number;
}

const canonical = (rows: readonly Row[]) =>
  rows
    .filter((row) => Number(row.visitors) > 0)
    .map((row) => `${Number(row.dim)}/${Number(row.grp)}/${Number(row.visitors)}`)
    .sort()
    .join(',');

async function timed(label: string, work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  console.log(`  ${label}: ${(ms / 1000).toFixed(2)} s`);
  return ms;
}

async function main(client: ClickHouseClient, target: ClickHouseTarget): Promise<boolean> {
  const db = target.database;
  const rows = async <T>(query: string): Promise<T[]> => (await client.query({ query, format: 'JSONEachRow', clickhouse_settings: BIG })).json<T>();
  /** p50 and best of `runs` runs after a warm-up; whether the answer is the reference. */
  const timeQuery = async (label: string, query: string, reference: readonly Row[]): Promise<boolean> => {
    const times: number[] = [];
    let answer: Row[] = [];
    for (let index = 0; index < runs + 1; index++) {
      const started = performance.now();
      answer = await rows<Row>(query);
      if (index > 0) times.push(performance.now() - started);
    }
    const same = canonical(answer) === canonical(reference);
    console.log(
      `${label}: p50 ${percentile(times, 50).toFixed(0)} ms, best ${Math.min(...times).toFixed(0)} ms (${runs} runs); ${same ? 'same answer as today' : 'DIFFERENT answer'}`,
    );
    return same;
  };
  const run = (query: string) => client.command({ query, clickhouse_settings: BIG });
  await migrateClickHouse(client, target, new ManualClock(0));
  for (let offset = 0; offset < hits; offset += BLOCK) await run(insertSyntheticBlock(target, offset, Math.min(BLOCK, hits - offset)));
  console.log(`${hits.toLocaleString('en-US')} hits loaded`);

  // Today's answer, the reference.
  const counter = new ClickHouseRangeCounter(client, target, new ClickHouseGenerations(client, target, () => (END + 1) * DAY));
  const plan = planRange(FIRST_DAY * DAY, END * DAY);
  const reference = (await counter.countVisitors(SITE, plan, 'visitors')).filter((row) => row.grp <= 3);

  await run(
    `CREATE TABLE ${db}.fold_visit_days (grp UInt8, dim Int32, visitor Int64, day Int64) ENGINE = MergeTree ORDER BY (visitor, grp, dim, day) SETTINGS index_granularity = 256`,
  );
  await run(`CREATE TABLE ${db}.fold_cells (dim Int32, grp UInt8, day Int64, prev Int64, n Int64) ENGINE = SummingMergeTree ORDER BY (grp, dim, day, prev)`);
  const [fresh] = await rows<{ hits: string; visitors: string }>(
    `SELECT count() AS hits, uniqExact(visitor) AS visitors FROM ${db}.analytics_hits WHERE site = ${SITE} AND at >= ${CUT}`,
  );
  console.log(`fresh: ${Number(fresh?.hits).toLocaleString('en-US')} hits of ${Number(fresh?.visitors).toLocaleString('en-US')} visitors`);

  console.log('bulk fold of the other hits:');
  await timed('visit days from raw hits', () =>
    run(`INSERT INTO ${db}.fold_visit_days SELECT DISTINCT grp, dim, visitor, day FROM (${visitorsKeys(target, `at < ${CUT}`)})`),
  );
  await timed('cells from visit days', () =>
    run(`INSERT INTO ${db}.fold_cells SELECT dim, grp, day, prev, toInt64(count()) FROM (
      SELECT dim, grp, visitor, arraySort(groupArray(day)) AS days FROM ${db}.fold_visit_days GROUP BY dim, grp, visitor
    ) ARRAY JOIN days AS day, arrayConcat([toInt64(-1)], arrayPopBack(days)) AS prev GROUP BY dim, grp, day, prev`),
  );

  const freshVisitors = `SELECT visitor FROM ${db}.analytics_hits WHERE site = ${SITE} AND at >= ${CUT}`;
  const cellsOnly = `SELECT dim, grp, sum(n) AS n FROM ${db}.fold_cells WHERE day >= ${FIRST_DAY} AND day < ${END} AND prev < ${FIRST_DAY} GROUP BY dim, grp`;
  const withFresh = `SELECT dim, grp, toUInt32(sum(n)) AS visitors FROM (
      ${cellsOnly}
      UNION ALL
      SELECT dim, grp, toInt64(count()) AS n FROM (SELECT DISTINCT dim, grp, visitor FROM (${visitorsKeys(target, `at >= ${CUT}`)}))
      WHERE (dim, grp, visitor) NOT IN (
        SELECT dim, grp, visitor FROM ${db}.fold_visit_days WHERE visitor IN (${freshVisitors}) AND day >= ${FIRST_DAY} AND day < ${END}
      ) GROUP BY dim, grp
    ) GROUP BY dim, grp`;
  let agree = await timeQuery('visitors query: cells + the fresh hits (anti-join by primary key)', withFresh, reference);

  console.log('fold step of the fresh hits:');
  // Per (dimension, group, visitor): `old` = its folded visit days, `days` = with the fresh
  // ones. Each list's cells are (day, previous day in the list, −1 for the first); the new
  // list's count +1, the old's −1, so only the cells that change remain.
  const cellsOf = (list: string, sign: number) =>
    `arrayMap(i -> (${list}[i], if(i = 1, toInt64(-1), ${list}[i - 1]), toInt64(${sign})), arrayEnumerate(${list}))`;
  await timed('cell changes (old and new visit-day lists of the fresh visitors)', () =>
    run(`INSERT INTO ${db}.fold_cells SELECT dim, grp, tupleElement(c, 1) AS day, tupleElement(c, 2) AS prev, sum(tupleElement(c, 3)) AS n FROM (
      SELECT dim, grp, visitor, arraySort(groupUniqArrayIf(day, fresh = 0)) AS old, arraySort(groupUniqArray(day)) AS days FROM (
        SELECT dim, grp, visitor, day, 1 AS fresh FROM (${visitorsKeys(target, `at >= ${CUT}`)})
        UNION ALL
        SELECT dim, grp, visitor, day, 0 AS fresh FROM ${db}.fold_visit_days WHERE visitor IN (${freshVisitors})
      ) GROUP BY dim, grp, visitor HAVING length(days) > length(old)
    ) ARRAY JOIN arrayConcat(${cellsOf('days', 1)}, ${cellsOf('old', -1)}) AS c
    GROUP BY dim, grp, day, prev HAVING n != 0`),
  );
  await timed('their visit days', () =>
    run(`INSERT INTO ${db}.fold_visit_days SELECT DISTINCT grp, dim, visitor, day FROM (${visitorsKeys(target, `at >= ${CUT}`)})`),
  );
  agree =
    (await timeQuery('visitors query: cells only, everything folded', `SELECT dim, grp, toUInt32(n) AS visitors FROM (${cellsOnly})`, reference)) && agree;
  const [counts] = await rows<{ cells: string; visitDays: string }>(
    `SELECT (SELECT count() FROM ${db}.fold_cells) AS cells, (SELECT count() FROM ${db}.fold_visit_days) AS visitDays`,
  );
  console.log(`  ${Number(counts?.cells).toLocaleString('en-US')} cell rows, ${Number(counts?.visitDays).toLocaleString('en-US')} visit days`);
  const started = performance.now();
  await counter.countVisitors(SITE, plan, 'visitors');
  console.log(`today's query (uniqExactMerge of day states), once: ${(performance.now() - started).toFixed(0)} ms`);
  return agree;
}

const server = await startClickHouse({ directoryPrefix: 'docwright-fold-experiment-' });
const client = createClient({
  url: server.url,
  request_timeout: 600_000,
  clickhouse_settings: { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '10000' },
});
try {
  if (!(await main(client, { database: 'fold_experiment', cluster: undefined }))) process.exitCode = 1;
} finally {
  await client.close();
  await server.stop();
}
