/**
 * The PostgreSQL hit insert alone, no HTTP and no worker, for comparing statement shapes:
 *   node --import tsx bench/analytics-postgres-insert-experiment.ts [--hits N] [--group N] [--rounds N] [--variants text,binary,binary-tlist,text-tlist] [--setup SQL]
 * Encodes the first N dataset hits once (as the raw-insert baseline does), then inserts
 * them into a fresh migrated database with each variant in turn, interleaved round by
 * round (a, b, a, b…), each into an emptied table, one statement per group of `--group`
 * hits on one connection. Prints wall time, the Node CPU of building the parameters and
 * the CPU of the PostgreSQL backend that ran the statements (its /proc stat), per hit.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { AnalyticsDataset, datasetSpec } from './analytics-dataset.js';
import { encodeHits } from './analytics-sqlite-baseline.js';
import { startBenchPostgres } from './lib/embedded-postgres.js';
import { processCpuSeconds } from './lib/process-cpu.js';
import { openPostgresDatabase } from '../src/db/postgres-database.js';
import { migrate } from '../src/db/migrator.js';
import { systemClock } from '../src/core/clock.js';
import type { HitBatch } from '../src/analytics/analytics-store.js';
import { INSERT_HITS, hitColumns, type HitRow } from '../src/analytics/postgres-hit-rows.js';
import { integerArrayLiteral, textArrayLiteral } from '../src/analytics/postgres-array-literal.js';

const { values } = parseArgs({
  options: {
    hits: { type: 'string', default: '400000' },
    group: { type: 'string', default: '16000' },
    rounds: { type: 'string', default: '3' },
    variants: { type: 'string', default: 'text,binary' },
    setup: { type: 'string', default: '' },
  },
});
const hits = Number(values.hits);
const groupSize = Number(values.group);
const rounds = Number(values.rounds);

/** The parameters as text array literals, as main sent them before the binary arrays. */
function textColumns(rows: HitRow[]): unknown[] {
  const column = (read: (batch: HitBatch, index: number) => number | bigint | null): string => integerArrayLiteral(rows, (row) => read(row.batch, row.index));
  const orNull = (value: number): number | null => (value === 0 ? null : value);
  return [
    rows[0]!.batch.site,
    rows[0]!.batch.classifierVersion,
    rows.length,
    column((batch, index) => batch.at[index]!),
    column((batch, index) => batch.page[index]!),
    column((batch, index) => batch.visitor[index]!),
    column((batch, index) => batch.classCode[index]!),
    column((batch, index) => orNull(batch.agent[index]!)),
    column((batch, index) => orNull(batch.userAgent[index]!)),
    textArrayLiteral(rows, (row) => row.batch.referrer[row.index] ?? null),
    column((batch, index) => batch.markdownAccept[index]!),
    column((batch, index) => batch.category[index]!),
    column((batch, index) => batch.verification[index]!),
    column((batch, index) => batch.readKind[index]!),
    column((batch, index) => orNull(batch.status[index]!)),
    column((batch, index) => orNull(batch.referral[index]!)),
    textArrayLiteral(rows, (row) => row.batch.addressBlock?.[row.index] ?? null),
    column((batch, index) => batch.evidence?.[index] ?? 0),
  ];
}

/** The insert as main had it before the select-list unnest: the arrays unnested in FROM (a tuplestore per array). */
const INSERT_HITS_FROM = `with batch as (insert into analytics_ingest_batches (hits) values ($3) returning id)
  insert into analytics_hits
  (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, batch,
   category, verification, read_kind, status, referral, address_block, evidence)
  select $1::integer, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, $2::integer, (select id from batch),
    category, verification, read_kind, status, referral, address_block, evidence
  from unnest($4::bigint[], $5::integer[], $6::bigint[], $7::smallint[], $8::integer[], $9::integer[], $10::text[], $11::smallint[],
    $12::smallint[], $13::smallint[], $14::smallint[], $15::smallint[], $16::integer[], $17::text[], $18::smallint[])
    as given (at, page, visitor, class, agent, user_agent, referrer, markdown_accept, category, verification, read_kind, status, referral,
      address_block, evidence)`;

const VARIANTS: Record<string, { build: (rows: HitRow[]) => unknown[]; text: string }> = {
  text: { build: textColumns, text: INSERT_HITS_FROM },
  binary: { build: hitColumns, text: INSERT_HITS_FROM },
  'binary-tlist': { build: hitColumns, text: INSERT_HITS },
  'text-tlist': { build: textColumns, text: INSERT_HITS },
};

const dataset = new AnalyticsDataset(datasetSpec(1));
const encoded = encodeHits(dataset, 0, hits, 'experiment-secret', 'prj_experiment');
const batches: HitBatch[] = [];
for (let from = 0; from < hits; from += groupSize) {
  const count = Math.min(groupSize, hits - from);
  const slice = <T extends { subarray(a: number, b: number): T }>(array: T): T => array.subarray(from, from + count);
  batches.push({
    site: 1,
    count,
    at: slice(encoded.at),
    page: slice(encoded.page),
    visitor: slice(encoded.visitor),
    classCode: Uint8Array.from(slice(encoded.classCode)),
    agent: slice(encoded.agent),
    userAgent: slice(encoded.userAgent),
    referrer: encoded.referrer.slice(from, from + count),
    markdownAccept: new Uint8Array(count),
    classifierVersion: 1,
    eventId: new Array<null>(count).fill(null),
    category: Uint8Array.from(slice(encoded.classCode)),
    verification: new Uint8Array(count),
    readKind: new Uint8Array(count),
    status: new Uint16Array(count).fill(200),
    referral: new Int32Array(count),
  });
}
const groups: HitRow[][] = batches.map((batch) => Array.from({ length: batch.count }, (_, index) => ({ batch, index })));

const postgres = await startBenchPostgres();
try {
  const url = await postgres.createDatabase('docwright_insert_experiment');
  const database = openPostgresDatabase(url);
  await migrate(database, systemClock);
  await database.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // --setup SQL: run once after the migrations, e.g. to see what an index costs.
  if (values.setup !== '') await client.query(values.setup);
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  const backend = rows[0]!.pid;
  const perHit = (seconds: number): string => `${((seconds * 1e6) / hits).toFixed(2)} µs`;
  for (let round = 0; round < rounds; round++) {
    for (const name of values.variants.split(',')) {
      const variant = VARIANTS[name];
      if (variant === undefined) throw new Error(`unknown variant ${name}`);
      await client.query('truncate analytics_hits, analytics_ingest_batches');
      await client.query('checkpoint');
      const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
      const backendBefore = processCpuSeconds({ pid: backend });
      const started = performance.now();
      let nodeCpu = 0;
      for (const group of groups) {
        const cpuBefore = process.cpuUsage();
        const parameters = variant.build(group);
        const used = process.cpuUsage(cpuBefore);
        nodeCpu += (used.user + used.system) / 1e6;
        await client.query({ name: `insert_${name}`, text: variant.text, values: parameters });
      }
      const seconds = (performance.now() - started) / 1000;
      const backendUsed = processCpuSeconds({ pid: backend }) - backendBefore;
      console.log(
        `round ${round + 1} ${name.padEnd(8)} load ${load}: wall ${perHit(seconds)}/hit, build ${perHit(nodeCpu)}, PostgreSQL backend ${perHit(backendUsed)}`,
      );
    }
  }
  await client.end();
} finally {
  await postgres.stop();
}
