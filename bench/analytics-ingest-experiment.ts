/**
 * A quick ingest-only measurement for trying changes, not a suite:
 *   node --import tsx bench/analytics-ingest-experiment.ts [--backend sqlite|postgres|clickhouse] [--hits N] [--clients N]
 * Ingests the first N dataset hits (default 300,000) over HTTP into a fresh server and
 * prints hits/s next to the raw better-sqlite3 insert of the same rows, measured just
 * before, and the rate until the first visitors answer (on ClickHouse that answer writes
 * what the ingest spool still holds). Folding is not measured: see the `analytics` suite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AnalyticsDataset, datasetSpec } from './analytics-dataset.js';
import { ingestOverHttp } from './analytics-http-ingest.js';
import { encodeHits, measureRawSqliteInsert } from './analytics-sqlite-baseline.js';
import { startBenchServer } from './lib/docwright-server.js';
import { startBenchPostgres, type BenchPostgres } from './lib/embedded-postgres.js';
import { startBenchClickHouse, type BenchClickHouse } from './lib/bench-clickhouse.js';
import { clickHouseActivity, clickHouseIngestStats } from './lib/clickhouse-ingest-stats.js';
import { processCpuSeconds } from './lib/process-cpu.js';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    hits: { type: 'string', default: '300000' },
    clients: { type: 'string', default: '4' },
  },
});
const backend = values.backend;
if (backend !== 'sqlite' && backend !== 'postgres' && backend !== 'clickhouse') throw new Error('--backend is sqlite, postgres or clickhouse');
const hits = Number(values.hits);
const clients = Number(values.clients);
if (!Number.isInteger(hits) || hits < 1000) throw new Error('--hits is an integer of at least 1,000');
if (!Number.isInteger(clients) || clients < 1) throw new Error('--clients is a positive integer');

const postgresCpuSeconds = (): number => processCpuSeconds({ name: 'postgres' });

const microseconds = (seconds: number): string => `${((seconds * 1e6) / hits).toFixed(1)} µs`;

const dataset = new AnalyticsDataset(datasetSpec(1));
const scratch = mkdtempSync(join(tmpdir(), 'docwright-ingest-experiment-'));
let postgres: BenchPostgres | undefined;
let clickhouse: BenchClickHouse | undefined;
try {
  const raw = await measureRawSqliteInsert(encodeHits(dataset, 0, hits, 'experiment-secret', 'prj_experiment'), join(scratch, 'raw.sqlite'));
  let databaseUrl: string | undefined;
  if (backend === 'postgres') {
    postgres = await startBenchPostgres();
    databaseUrl = await postgres.createDatabase('docwright_ingest_experiment');
  }
  let environment: Record<string, string> | undefined;
  if (backend === 'clickhouse') {
    clickhouse = await startBenchClickHouse({ queryLog: true });
    environment = clickhouse.environment('docwright_ingest_experiment');
  }
  const server = await startBenchServer({ dataDir: join(scratch, 'server'), databaseUrl, environment });
  try {
    const clickhouseCpuSeconds = (): number => (clickhouse === undefined ? 0 : processCpuSeconds({ pid: clickhouse.pid }));
    const clickhouseBefore = clickhouseCpuSeconds();
    const postgresBefore = postgresCpuSeconds();
    const clientBefore = process.cpuUsage();
    const run = await ingestOverHttp({ server, dataset, from: 0, to: hits, concurrency: clients, prebuild: true });
    const answerStarted = performance.now();
    const answerStartedAt = Date.now();
    const serverBefore = await server.cpuSeconds();
    // The first answer after the load: on ClickHouse it writes what the spool still holds first.
    const answer = await fetch(`${server.url}/v1/analytics/${encodeURIComponent(server.projectId)}/visitors?limit=1`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    });
    if (answer.status !== 200) throw new Error(`GET …/visitors answered ${answer.status}: ${await answer.text()}`);
    const answerSeconds = (performance.now() - answerStarted) / 1000;
    const queryableSeconds = run.seconds + answerSeconds;
    const serverUntilAnswer = run.serverCpuSeconds + (await server.cpuSeconds()) - serverBefore;
    const postgresUsed = postgresCpuSeconds() - postgresBefore;
    const clickhouseUsed = clickhouseCpuSeconds() - clickhouseBefore;
    const clientUsage = process.cpuUsage(clientBefore);
    const ratio = run.hitsPerSecond / raw.hitsPerSecond;
    console.log(
      `CPU per hit: server ${microseconds(run.serverCpuSeconds)}, PostgreSQL processes ${microseconds(postgresUsed)}, ClickHouse ${microseconds(clickhouseUsed)}, load generator ${microseconds((clientUsage.user + clientUsage.system) / 1e6)}; wall ${microseconds(run.seconds)}`,
    );
    console.log(
      `${backend}: ${Math.round(run.hitsPerSecond).toLocaleString('en-US')} hits/s (${ratio.toFixed(2)}× raw ${Math.round(raw.hitsPerSecond).toLocaleString('en-US')}),` +
        ` ${Math.round(hits / run.serverCpuSeconds).toLocaleString('en-US')} hits per server CPU-s, request p50 ${run.latency.p50.toFixed(0)} ms`,
    );
    console.log(
      `until the first visitors answer (${Math.round(answerSeconds * 1000)} ms after the last hit): ${Math.round(hits / queryableSeconds).toLocaleString('en-US')} hits/s (${(hits / queryableSeconds / raw.hitsPerSecond).toFixed(2)}× raw), server CPU ${microseconds(serverUntilAnswer)} per hit (the PostgreSQL and ClickHouse CPU above include that answer)`,
    );
    if (environment !== undefined) {
      console.log(await clickHouseActivity(environment.DOCWRIGHT_ANALYTICS_URL!, answerStartedAt, answerStartedAt + answerSeconds * 1000));
      console.log(await clickHouseIngestStats(environment.DOCWRIGHT_ANALYTICS_URL!));
    }
  } finally {
    await server.stop();
  }
} finally {
  await postgres?.stop();
  await clickhouse?.stop();
  rmSync(scratch, { recursive: true, force: true });
}
