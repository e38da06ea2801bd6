/**
 * `npm install --no-save chdb && node --import tsx scripts/chdb-check.ts`: proves that the
 * ClickHouse SQL of src/analytics/clickhouse (every migration, the RowBinary insert, the
 * event-id check, the range counts of every kind, views included, and the visitor cells: a
 * build, a report from the cells with fresh hits beside them, the deletion of a dead build's
 * cells) gives the same answers on a current
 * ClickHouse (chdb, in-process, 26.x) as on Debian's clickhouse-server 18.16 that CI runs.
 * chdb (about 540 MB) is never a dependency: this script loads it only when asked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import type { HitBatch } from '../src/analytics/analytics-store.js';
import { ClickHouseCellBuilds, DEAD_BUILD_MS } from '../src/analytics/clickhouse/clickhouse-cell-builds.js';
import { ClickHouseGenerations } from '../src/analytics/clickhouse/clickhouse-generations.js';
import { ClickHouseSpool } from '../src/analytics/clickhouse/clickhouse-spool.js';
import { ClickHouseHitWriter } from '../src/analytics/clickhouse/clickhouse-hit-writer.js';
import { migrateClickHouse, type ClickHouseTarget } from '../src/analytics/clickhouse/clickhouse-migrations.js';
import { deleteRows } from '../src/analytics/clickhouse/clickhouse-mutations.js';
import { ClickHouseRangeCounter } from '../src/analytics/clickhouse/clickhouse-range-counter.js';
import { planRange } from '../src/analytics/range-plan.js';
import { ManualClock } from '../src/core/clock.js';
import { chdbClient, loadChdb } from '../test/helpers/chdb-client.js';
import { startClickHouse } from '../test/helpers/clickhouse-server.js';

const DAY = 86_400_000;
const FIRST_DAY = 20_600;

/** A deterministic batch: `days` days from `firstDay` (8 from FIRST_DAY), a few pages, visitors and agents, some event ids repeated. */
function batch(seed: number, count: number, firstDay = FIRST_DAY, days = 8): HitBatch {
  let state = seed;
  const next = (modulo: number) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % modulo;
  };
  const at = new Float64Array(count);
  const page = new Int32Array(count);
  const visitor = new BigInt64Array(count);
  const classCode = new Uint8Array(count);
  const agent = new Int32Array(count);
  const eventId: Array<string | null> = [];
  for (let index = 0; index < count; index++) {
    at[index] = (firstDay + next(days)) * DAY + next(DAY);
    page[index] = 1 + next(5);
    visitor[index] = BigInt(next(40)) - 20n;
    classCode[index] = 1 + next(5);
    agent[index] = classCode[index]! >= 2 && next(2) === 0 ? 100 + classCode[index]! : 0;
    eventId.push(next(4) === 0 ? `e${next(30)}` : null);
  }
  return {
    site: 7,
    count,
    at,
    page,
    visitor,
    classCode,
    agent,
    userAgent: new Int32Array(count),
    referrer: Array.from({ length: count }, (_, index) => (index % 3 === 0 ? null : `https://example.com/?q=\t'\\${index}`)),
    markdownAccept: new Uint8Array(count),
    classifierVersion: 1,
    eventId,
    category: classCode.map((code) => code + 1),
    verification: new Uint8Array(count),
    readKind: new Uint8Array(count),
    status: Uint16Array.from({ length: count }, (_, index) => (index % 4 === 0 ? 0 : 200 + index)),
    referral: new Int32Array(count),
  };
}

async function answers(client: ClickHouseClient, database: string): Promise<unknown[]> {
  const target = { database, cluster: undefined };
  await migrateClickHouse(client, target, new ManualClock(0));
  const generations = new ClickHouseGenerations(client, target, () => 0);
  // The store's path without its background drainer: batches accepted into a spool, then written in one drain.
  const stored = [];
  for (let round = 0; round < 4; round++) stored.push(await write(client, target, generations, 0, batch(round % 3, 300)));
  const counter = new ClickHouseRangeCounter(client, target, generations);
  const sorted = (rows: object[]) => rows.map((row) => JSON.stringify(row)).sort();
  const ranges: Array<[number | null, number | null]> = [
    [null, null],
    [(FIRST_DAY + 1) * DAY, (FIRST_DAY + 5) * DAY],
    [(FIRST_DAY + 1) * DAY + 3_600_000, (FIRST_DAY + 5) * DAY + 7_200_000],
    [(FIRST_DAY + 2) * DAY + 1, (FIRST_DAY + 2) * DAY + DAY / 2],
  ];
  const result: unknown[] = [stored];
  for (const [from, to] of ranges) {
    const plan = planRange(from, to);
    result.push(
      sorted(await counter.countVisitors(7, plan, 'visitors')),
      sorted(await counter.countVisitors(7, plan, 'traffic')),
      sorted(await counter.countHits(7, plan)),
      sorted(await counter.countDaily(7, plan)),
      sorted(await counter.countPageViews(7, plan)),
    );
  }
  result.push(await cellAnswers(client, target, generations, counter));
  return result;
}

/** The store's path without its background drainer: a batch accepted into a spool, then written in one drain at `writtenAt`. */
async function write(client: ClickHouseClient, target: ClickHouseTarget, generations: ClickHouseGenerations, writtenAt: number, hits: HitBatch) {
  const spool = new ClickHouseSpool(':memory:');
  const writer = new ClickHouseHitWriter(client, target, generations, spool, () => undefined, new ManualClock(writtenAt));
  const stored = await writer.accept(hits);
  const records = spool.take(Number.MAX_SAFE_INTEGER, 0, 60_000);
  await writer.writeSpooled(records, (_record, error) => {
    throw error;
  });
  spool.complete(records.map((record) => record.id));
  spool.close();
  return stored;
}

/**
 * Visitor cells (migrations 006–008): a build of everything written so far, its answer for
 * every whole-day range, then hits written after its mark on two days and the answer of the
 * cells with them beside, and a second build that deletes the cells of a dead one. Each
 * answer must equal the states' on this engine too.
 */
async function cellAnswers(client: ClickHouseClient, target: ClickHouseTarget, generations: ClickHouseGenerations, counter: ClickHouseRangeCounter) {
  const cells = new ClickHouseCellBuilds(client, client, target, (table, where) => deleteRows(client, target, table, where));
  const map = await generations.of(7);
  const ranges = [
    [FIRST_DAY, FIRST_DAY + 8],
    [FIRST_DAY + 1, FIRST_DAY + 5],
    [FIRST_DAY + 6, FIRST_DAY + 7],
  ] as const;
  const checked = async () => {
    const answers = [];
    for (const [from, to] of ranges) {
      const fromCells = await cells.visitors(7, from, to, map, 0);
      if (fromCells === null) throw new Error(`the cells did not answer for days [${from}, ${to})`);
      const canonical = (rows: readonly object[]) => rows.map((row) => JSON.stringify(row)).sort();
      const states = canonical(await counter.countVisitors(7, planRange(from * DAY, to * DAY), 'visitors'));
      if (JSON.stringify(canonical(fromCells)) !== JSON.stringify(states)) throw new Error(`cells and states differ for days [${from}, ${to})`);
      answers.push(canonical(fromCells));
    }
    return answers;
  };
  await cells.build(7, 5_000, 0, map.latestSwitch());
  const built = await checked();
  // Written after the mark (at 10 s; the first hits at 0), on two days, some by new visitors.
  await write(client, target, generations, 10_000, batch(5, 200, FIRST_DAY + 5, 2));
  const fresh = await checked();
  if (JSON.stringify(fresh) === JSON.stringify(built)) throw new Error('the hits written after the build changed no answer');
  // A build that died: its start past the limit before the next mark, one cell, no row.
  const next = 20_000;
  await client.command({
    query: `INSERT INTO ${target.database}.analytics_visitor_cell_starts (site, build, started) VALUES (7, 42, ${next - DEAD_BUILD_MS - 1})`,
  });
  await client.command({
    query: `INSERT INTO ${target.database}.analytics_visitor_cells (site, build, gen, grp, dim, day, prev, visitors) VALUES (7, 42, 0, 1, 0, ${FIRST_DAY + 2}, -1, 1000)`,
  });
  await cells.build(7, next, 0, map.latestSwitch());
  const [dead] = await (
    await client.query({ query: `SELECT count() AS n FROM ${target.database}.analytics_visitor_cells WHERE build = 42`, format: 'JSONEachRow' })
  ).json<{ n: string | number }>();
  if (Number(dead!.n) !== 0) throw new Error("the dead build's cells were not deleted");
  return { built, fresh, rebuilt: await checked() };
}

const chdb = await loadChdb();
const directory = mkdtempSync(join(tmpdir(), 'docwright-chdb-'));
const session = new chdb.Session(directory);
const server = await startClickHouse({ directoryPrefix: 'docwright-chdb-check-' });
const old = createClient({ url: server.url });
try {
  const modern = await answers(chdbClient(session), 'chdb_check');
  const legacy = await answers(old, 'chdb_check');
  const versions = `chdb ${session.query('SELECT version()', 'CSV').trim()} vs clickhouse-server ${(await (await old.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })).json<{ v: string }>())[0]!.v}`;
  if (JSON.stringify(modern) !== JSON.stringify(legacy)) {
    console.error(`DIFFERENT answers (${versions}):\n${JSON.stringify(modern)}\n${JSON.stringify(legacy)}`);
    process.exitCode = 1;
  } else {
    console.log(`same answers (${versions}): ${modern.length} result sets, ${JSON.stringify(modern).length} characters`);
  }
} finally {
  await old.close();
  await server.stop();
  session.cleanup();
  rmSync(directory, { recursive: true, force: true });
}
