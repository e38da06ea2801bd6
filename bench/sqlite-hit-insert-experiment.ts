/**
 * What one insert statement per hit costs against SqliteHitWriter's 50 rows per statement,
 * not a suite:
 *   node --import tsx bench/sqlite-hit-insert-experiment.ts [--hits N] [--rounds N]
 * The same 1,000-hit batches (real migrations, every column the store writes) go into two
 * fresh SQLite files, one transaction per batch, the two ways alternating round by round;
 * prints the CPU per hit of each (the process's, so SQLite's work is in it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type BetterSqlite3 from 'better-sqlite3';
import type { HitBatch } from '../src/analytics/analytics-store.js';
import { SqliteHitWriter } from '../src/analytics/sqlite-hit-writer.js';
import { systemClock } from '../src/core/clock.js';
import { migrate } from '../src/db/migrator.js';
import { openSqliteDatabase } from '../src/db/sqlite-database.js';

const { values } = parseArgs({ options: { hits: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '5' } } });
const hitsPerRound = Number(values.hits);
const rounds = Number(values.rounds);
const BATCH = 1_000;

/** The store's insert before SqliteHitWriter: one statement per hit. */
const ONE_ROW = `insert into analytics_hits
  (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, category, verification, read_kind, status, referral,
   address_block, evidence)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function batchAt(first: number): HitBatch {
  const batch: HitBatch = {
    site: 1,
    count: BATCH,
    at: new Float64Array(BATCH),
    page: new Int32Array(BATCH),
    visitor: new BigInt64Array(BATCH),
    classCode: new Uint8Array(BATCH),
    agent: new Int32Array(BATCH),
    userAgent: new Int32Array(BATCH),
    referrer: [],
    markdownAccept: new Uint8Array(BATCH),
    classifierVersion: 1,
    eventId: [],
    category: new Uint8Array(BATCH),
    verification: new Uint8Array(BATCH),
    readKind: new Uint8Array(BATCH),
    status: new Uint16Array(BATCH),
    referral: new Int32Array(BATCH),
    addressBlock: [],
    evidence: new Uint8Array(BATCH),
  };
  for (let index = 0; index < BATCH; index++) {
    const hit = first + index;
    const agent = hit % 7 === 0;
    batch.at[index] = 1_790_000_000_000 + hit * 250;
    batch.page[index] = (hit * 7_919) % 5_000;
    batch.visitor[index] = (BigInt(hit) * 2_654_435_761n) % 9_223_372_036_854_775_807n;
    batch.classCode[index] = agent ? 2 : 1;
    batch.agent[index] = agent ? 3 : 0;
    batch.userAgent[index] = 1 + (hit % 40);
    batch.referrer.push(hit % 3 === 0 ? 'https://www.google.com/' : null);
    batch.eventId.push(null);
    batch.category[index] = agent ? 2 : 7;
    batch.addressBlock!.push(agent ? '66.249.64.0/27' : null);
  }
  return batch;
}

function rowByRow(connection: BetterSqlite3.Database): (batch: HitBatch) => void {
  const insert = connection.prepare(ONE_ROW);
  return (batch) => {
    for (let index = 0; index < batch.count; index++) {
      const agent = batch.agent[index]!;
      insert.run(
        batch.site,
        batch.at[index],
        batch.page[index],
        batch.visitor[index],
        batch.classCode[index],
        agent === 0 ? null : agent,
        batch.userAgent[index],
        batch.referrer[index] ?? null,
        batch.markdownAccept[index],
        batch.classifierVersion,
        batch.category[index],
        batch.verification[index],
        batch.readKind[index],
        null,
        null,
        batch.addressBlock?.[index] ?? null,
        batch.evidence?.[index] ?? 0,
      );
    }
  };
}

const scratch = mkdtempSync(join(tmpdir(), 'docwright-hit-insert-'));
try {
  const open = async (name: string): Promise<{ connection: BetterSqlite3.Database; close(): Promise<void> }> => {
    const database = openSqliteDatabase(join(scratch, `${name}.sqlite`));
    await migrate(database, systemClock);
    if (database.raw.dialect !== 'sqlite') throw new Error('expected SQLite');
    return { connection: database.raw.connection, close: () => database.close() };
  };
  const single = await open('row-by-row');
  const multi = await open('writer');
  const writer = new SqliteHitWriter(multi.connection);
  const ways = [
    { name: 'one statement per hit', connection: single.connection, write: rowByRow(single.connection), micros: [] as number[] },
    { name: `SqliteHitWriter`, connection: multi.connection, write: (batch: HitBatch) => void writer.write(batch), micros: [] as number[] },
  ];
  let first = 0;
  for (let round = 0; round < rounds; round++) {
    const batches = Array.from({ length: hitsPerRound / BATCH }, (_, index) => batchAt(first + index * BATCH));
    first += hitsPerRound;
    for (const way of round % 2 === 0 ? ways : [...ways].reverse()) {
      const transaction = way.connection.transaction(way.write);
      const before = process.cpuUsage();
      for (const batch of batches) transaction(batch);
      const cpu = process.cpuUsage(before);
      way.micros.push((cpu.user + cpu.system) / hitsPerRound);
    }
  }
  for (const way of ways) {
    const sorted = [...way.micros].sort((a, b) => a - b);
    console.log(
      `${way.name}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} µs CPU per hit (rounds: ${way.micros.map((value) => value.toFixed(2)).join(', ')})`,
    );
  }
  await single.close();
  await multi.close();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
