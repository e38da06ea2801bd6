/**
 * `node --import tsx bench/clickhouse-engine-visitors.ts [--hits N] [--runs K] [--engines 18,chdb]`:
 * the visitors report's ClickHouse query (ClickHouseRangeCounter.countVisitors, 30 whole
 * days, pages and the site, human / ai / either) on Debian's clickhouse-server 18.16 and
 * on a current ClickHouse (chdb 26.x, in-process; `DOCWRIGHT_CHDB_MODULE` or
 * `npm install --no-save chdb`), over the same synthetic site: N hits (default 10M) over 30
 * days, 1M visitors (85 % human, 15 % ai), 5,000 pages with a skewed popularity, inserted by
 * `INSERT … SELECT … FROM numbers()` in 1M-row blocks into analytics_hits, so the
 * migrations' materialized views build the rollups as they do for ingest. Prints the load
 * time, p50 and best of K runs and the answer's totals per engine (they must agree).
 *
 * Why: the suite's ClickHouse p50 at 10M (issue 13, target ≤ 300 ms) is seconds on 18.16;
 * this separates the engine's share from Docwright's. chdb runs in this process, with this
 * machine's cores, and its queries block the thread, so it is a measurement, never a
 * production path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { SITE_DIMENSION } from '../src/analytics/analytics-codes.js';
import { ClickHouseGenerations } from '../src/analytics/clickhouse/clickhouse-generations.js';
import { migrateClickHouse, type ClickHouseTarget } from '../src/analytics/clickhouse/clickhouse-migrations.js';
import { ClickHouseRangeCounter } from '../src/analytics/clickhouse/clickhouse-range-counter.js';
import { planRange } from '../src/analytics/range-plan.js';
import { ManualClock } from '../src/core/clock.js';
import { chdbClient, loadChdb } from '../test/helpers/chdb-client.js';
import { startClickHouse } from '../test/helpers/clickhouse-server.js';
import { percentile } from './lib/percentiles.js';
import { BLOCK, DAY, FIRST_DAY, insertSyntheticBlock, SITE, visitorsKeys } from './lib/synthetic-clickhouse-site.js';

const { values } = parseArgs({
  options: { hits: { type: 'string', default: '10000000' }, runs: { type: 'string', default: '7' }, engines: { type: 'string', default: '18,chdb' } },
});
const hits = Number(values.hits);
const runs = Number(values.runs);
const engines = values.engines.split(',');

interface EngineResult {
  engine: string;
  version: string;
  loadMs: number;
  p50Ms: number;
  bestMs: number;
  site: string;
  pages: number;
  cells: { buildMs: number; rows: number; p50Ms: number; bestMs: number; same: boolean };
}

/**
 * The design SQLite and PostgreSQL use (docs/analytics.md, "Why counts are exact"), built
 * here in one statement for comparison: per (dimension, group, visitor) the sorted visit
 * days, and per visit day the previous one (−1: none); cells count them by (dimension,
 * group, day, previous day). Unique visitors over whole days [F, T) are then the sum of
 * the cells with F ≤ day < T and previous < F. A full rebuild, not an incremental fold:
 * its time is what a fold of a whole bulk load would cost at least. At 10M its group by
 * (dimension, group, visitor) passes 18.16's default memory limit for a query, so it may
 * use 12 GB and spills to disk past 4 GB.
 */
function buildCells(target: ClickHouseTarget): string {
  const keys = visitorsKeys(target, '1');
  return `INSERT INTO ${target.database}.bench_cells
    SELECT dim, grp, day, prev, count() AS n FROM (
      SELECT dim, grp, visitor, arraySort(groupUniqArray(day)) AS days FROM (${keys}) GROUP BY dim, grp, visitor
    ) ARRAY JOIN arrayMap(d -> toInt64(d), days) AS day, arrayConcat([toInt64(-1)], arrayMap(d -> toInt64(d), arrayPopBack(days))) AS prev
    GROUP BY dim, grp, day, prev`;
}

async function measure(engine: string, client: ClickHouseClient, target: ClickHouseTarget): Promise<EngineResult> {
  await migrateClickHouse(client, target, new ManualClock(0));
  const loadStarted = performance.now();
  for (let offset = 0; offset < hits; offset += BLOCK) {
    await client.command({ query: insertSyntheticBlock(target, offset, Math.min(BLOCK, hits - offset)) });
    process.stderr.write(`\r${engine}: ${Math.min(hits, offset + BLOCK).toLocaleString('en-US')} of ${hits.toLocaleString('en-US')} hits loaded`);
  }
  // Unmerged parts are part of what a query after a load reads; nothing is optimised here.
  const loadMs = performance.now() - loadStarted;
  process.stderr.write('\n');
  const counter = new ClickHouseRangeCounter(client, target, new ClickHouseGenerations(client, target, () => (FIRST_DAY + 31) * DAY));
  const plan = planRange(FIRST_DAY * DAY, (FIRST_DAY + 30) * DAY);
  const times: number[] = [];
  let answer: Awaited<ReturnType<ClickHouseRangeCounter['countVisitors']>> = [];
  for (let run = 0; run < runs + 1; run++) {
    const started = performance.now();
    answer = await counter.countVisitors(SITE, plan, 'visitors');
    // The first run warms caches; the suite's p50 is of repeated queries too.
    if (run > 0) times.push(performance.now() - started);
  }
  const siteCounts = answer.filter((row) => row.dim === SITE_DIMENSION).map((row) => `${row.grp}:${row.visitors}`);

  await client.command({
    query: `CREATE TABLE ${target.database}.bench_cells (dim Int32, grp UInt8, day Int64, prev Int64, n UInt64) ENGINE = SummingMergeTree ORDER BY (grp, dim, day, prev)`,
  });
  const buildStarted = performance.now();
  await client.command({
    query: buildCells(target),
    clickhouse_settings: { max_memory_usage: '12000000000', max_bytes_before_external_group_by: '4000000000' },
  });
  const buildMs = performance.now() - buildStarted;
  const [cellRows] = await (
    await client.query({ query: `SELECT count() AS n FROM ${target.database}.bench_cells`, format: 'JSONEachRow' })
  ).json<{ n: string }>();
  const cellQuery = `SELECT dim, grp, toUInt32(sum(n)) AS visitors FROM ${target.database}.bench_cells
    WHERE day >= ${FIRST_DAY} AND day < ${FIRST_DAY + 30} AND prev < ${FIRST_DAY} GROUP BY dim, grp`;
  const cellTimes: number[] = [];
  let cellAnswer: Array<{ dim: number; grp: number; visitors: number }> = [];
  for (let run = 0; run < runs + 1; run++) {
    const started = performance.now();
    cellAnswer = await (await client.query({ query: cellQuery, format: 'JSONEachRow' })).json();
    if (run > 0) cellTimes.push(performance.now() - started);
  }
  const canonical = (rows: ReadonlyArray<{ dim: number; grp: number; visitors: number }>) =>
    rows
      .map((row) => `${Number(row.dim)}/${Number(row.grp)}/${Number(row.visitors)}`)
      .sort()
      .join(',');
  const [versionRow] = await (await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })).json<{ v: string }>();
  return {
    engine,
    version: versionRow?.v ?? '?',
    loadMs,
    p50Ms: percentile(times, 50),
    bestMs: Math.min(...times),
    site: siteCounts.sort().join(' '),
    pages: new Set(answer.filter((row) => row.dim !== SITE_DIMENSION).map((row) => row.dim)).size,
    cells: {
      buildMs,
      rows: Number(cellRows?.n ?? 0),
      p50Ms: percentile(cellTimes, 50),
      bestMs: Math.min(...cellTimes),
      same: canonical(cellAnswer) === canonical(answer),
    },
  };
}

const results: EngineResult[] = [];
const database = 'engine_visitors';
if (engines.includes('18')) {
  const server = await startClickHouse({ directoryPrefix: 'docwright-engine-visitors-' });
  // Inserts of 1M rows and their views take seconds; progress headers keep the connection alive meanwhile.
  const client = createClient({
    url: server.url,
    request_timeout: 600_000,
    clickhouse_settings: { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '10000' },
  });
  try {
    results.push(await measure('clickhouse-server', client, { database, cluster: undefined }));
  } finally {
    await client.close();
    await server.stop();
  }
}
if (engines.includes('chdb')) {
  const chdb = await loadChdb();
  const directory = mkdtempSync(join(tmpdir(), 'docwright-engine-chdb-'));
  const session = new chdb.Session(directory);
  try {
    results.push(await measure('chdb', chdbClient(session), { database, cluster: undefined }));
  } finally {
    session.cleanup();
    rmSync(directory, { recursive: true, force: true });
  }
}
for (const result of results) {
  console.log(
    `${result.engine} ${result.version}: load ${(result.loadMs / 1000).toFixed(1)} s; visitors query p50 ${result.p50Ms.toFixed(0)} ms, best ${result.bestMs.toFixed(0)} ms (${runs} runs); site ${result.site}; ${result.pages} pages`,
  );
  const { cells } = result;
  console.log(
    `  prev-day cells: built in ${(cells.buildMs / 1000).toFixed(1)} s (${cells.rows.toLocaleString('en-US')} rows); query p50 ${cells.p50Ms.toFixed(0)} ms, best ${cells.bestMs.toFixed(0)} ms; ${cells.same ? 'same answer' : 'DIFFERENT answer'}`,
  );
  if (!cells.same) process.exitCode = 1;
}
if (new Set(results.map((result) => `${result.site} ${result.pages}`)).size > 1) {
  console.error('ANSWERS DIFFER between the engines');
  process.exitCode = 1;
}
