/**
 * The `analytics` suite. On the seeded dataset (bench/analytics-dataset.ts, × scale):
 *   - ingest rate through the HTTP batch endpoint ÷ a raw better-sqlite3 insert loop of
 *     the same rows into the same table;
 *   - p50 of the visitors endpoint (30 days, totals + first page of 50) ÷ DuckDB
 *     computing the same answer over the same rows, and the answers compared;
 * for each selected backend (SQLite, and PostgreSQL started by the suite in /tmp).
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AnalyticsDataset, datasetSpec } from './analytics-dataset.js';
import { loadDuckDbHits } from './analytics-duckdb-baseline.js';
import { REPORT_RUNS, timeReportEndpoints } from './analytics-report-timings.js';
import { ingestOverHttp, EVENTS_PER_REQUEST } from './analytics-http-ingest.js';
import { writeRequestBodies } from './analytics-request-bodies.js';
import { queryVisitorsOverHttp } from './analytics-http-query.js';
import { LIVE_HITS, timeLiveSite } from './analytics-live-site.js';
import { writeRawRowsCsv } from './analytics-raw-rows.js';
import { encodeHits, measureRawSqliteInsert, type RawInsertResult } from './analytics-sqlite-baseline.js';
import { compareAnswers, type VisitorsAnswer, type VisitorsQuestion } from './analytics-visitors-answer.js';
import { foldProgress } from './analytics-fold-progress.js';
import type { BackendName } from './lib/bench-arguments.js';
import { backendTitle, CLICKHOUSE_CONTEXT, clickhouseTargetMetrics, startBenchClickHouse, type BenchClickHouse } from './lib/bench-clickhouse.js';
import type { BenchOptions } from './lib/bench-options.js';
import { startBenchServer } from './lib/docwright-server.js';
import { POSTGRES_SETTINGS, startBenchPostgres, type BenchPostgres } from './lib/embedded-postgres.js';
import type { SampleSummary } from './lib/percentiles.js';
import { metric, type BenchMetric, type SuiteReport } from './lib/suite-report.js';
import { timeOnce, timeRepeated } from './lib/timing.js';

/** The measured ingest sample: the first million hits (all of them below scale 0.1). */
const INGEST_SAMPLE = 1_000_000;
const CLIENTS = 4;
const QUERY_LIMIT = 50;
const QUERY_RUNS = { warmup: 2, iterations: 15 };
const BASELINE_PROJECT = 'prj_bench';
const BASELINE_SECRET = 'bench-baseline-secret-bench-baseline-secret';
/** How long the suite waits for the background fold to catch up before timing queries anyway. */
const FOLD_WAIT_LIMIT_SECONDS = 1800;

/**
 * Issue 13's targets for the SQL backends; the first-answer limit is the 1M one up to a
 * million hits, the 10M one beyond. ClickHouse's come from clickhouseTargetMetrics.
 */
const TARGETS: Partial<
  Record<BackendName, { untilQueryable: number; ingestAfterFirstMillion: number; firstAnswerMillion: number; firstAnswerFull: number; p50: number }>
> = {
  sqlite: { untilQueryable: 0.3, ingestAfterFirstMillion: 0.35, firstAnswerMillion: 2_000, firstAnswerFull: 20_000, p50: 100 },
  postgres: { untilQueryable: 0.2, ingestAfterFirstMillion: 0.2, firstAnswerMillion: 3_000, firstAnswerFull: 30_000, p50: 300 },
};

interface Baselines {
  /** The request bodies of the whole dataset, serialized once (analytics-request-bodies.ts). */
  bodyCache: string;
  rawInsert: RawInsertResult;
  duckdb: { p50: number; summary: SampleSummary; answer: VisitorsAnswer; loadSeconds: number };
}

export async function runAnalyticsBenchmarks(options: BenchOptions): Promise<SuiteReport[]> {
  const dataset = new AnalyticsDataset(datasetSpec(options.scale));
  const spec = dataset.spec;
  const sample = Math.min(spec.hits, INGEST_SAMPLE);
  const question: VisitorsQuestion = { from: spec.start, to: dataset.end, limit: QUERY_LIMIT, offset: 0 };
  options.log(
    `analytics: ${spec.hits.toLocaleString('en-US')} hits, ${spec.visitors.toLocaleString('en-US')} visitors, ${spec.pages} pages, ${spec.days} days`,
  );
  const baselines = await measureBaselines(dataset, sample, question, options);
  const reports: SuiteReport[] = [];
  let postgres: BenchPostgres | undefined;
  let clickhouse: BenchClickHouse | undefined;
  try {
    for (const backend of options.backends) {
      let databaseUrl: string | undefined;
      let environment: Record<string, string> | undefined;
      if (backend === 'clickhouse') {
        options.log("analytics: starting ClickHouse (Debian's clickhouse-server, /tmp)");
        clickhouse ??= await startBenchClickHouse();
        environment = clickhouse.environment(`docwright_bench_${Date.now()}`);
      }
      if (backend === 'postgres') {
        options.log('analytics: starting PostgreSQL (embedded-postgres, /tmp)');
        postgres ??= await startBenchPostgres();
        databaseUrl = await postgres.createDatabase(`docwright_bench_${Date.now()}`);
      }
      const report = await measureBackend({ backend, databaseUrl, environment, dataset, sample, question, baselines, options });
      options.onReport?.(report);
      reports.push(report);
    }
  } finally {
    await postgres?.stop();
    await clickhouse?.stop();
  }
  return reports;
}

async function measureBaselines(dataset: AnalyticsDataset, sample: number, question: VisitorsQuestion, options: BenchOptions): Promise<Baselines> {
  options.log('analytics: writing the raw rows CSV for DuckDB (once per dataset, kept in bench/.data)');
  const csv = await writeRawRowsCsv(dataset, options.dataDir);
  options.log('analytics: DuckDB baseline');
  const duck = await loadDuckDbHits(csv);
  let duckdb: Baselines['duckdb'];
  try {
    const timed = await timeRepeated(() => duck.visitors(question), { warmup: 1, iterations: Math.max(3, Math.round(QUERY_RUNS.iterations / 3)) });
    duckdb = { p50: timed.summary.p50, summary: timed.summary, answer: timed.lastResult, loadSeconds: duck.loadSeconds };
  } finally {
    duck.close();
  }
  options.log(`analytics: raw better-sqlite3 insert baseline (${sample.toLocaleString('en-US')} rows)`);
  const rows = encodeHits(dataset, 0, sample, BASELINE_SECRET, BASELINE_PROJECT);
  const rawInsert = await measureRawSqliteInsert(rows, join(options.dataDir, 'raw-insert-baseline.sqlite'));
  options.log(`analytics: serializing the ingest request bodies (once per dataset, kept in bench/.data)`);
  const bodyCache = await writeRequestBodies(dataset, options.dataDir, EVENTS_PER_REQUEST);
  return { bodyCache, rawInsert, duckdb };
}

interface BackendRun {
  backend: BackendName;
  databaseUrl: string | undefined;
  /** More server settings (ClickHouse: DOCWRIGHT_ANALYTICS_URL). */
  environment?: Record<string, string> | undefined;
  dataset: AnalyticsDataset;
  sample: number;
  question: VisitorsQuestion;
  baselines: Baselines;
  options: BenchOptions;
}

/**
 * Agent verification off: DuckDB counts the dataset's hits by their User-Agent, and with
 * verification on the dataset's agents (random addresses) fail their operators' checks: an
 * agent whose operator documents reverse DNS is then spoofed, and no longer `ai`. What
 * verification adds to ingest is measured by the verification suite.
 */
const ANSWERS_AS_DUCKDB = { DOCWRIGHT_AGENT_VERIFICATION: 'off' };

async function measureBackend(run: BackendRun): Promise<SuiteReport> {
  const { backend, dataset, sample, question, baselines, options } = run;
  const spec = dataset.spec;
  const dataDir = join(options.dataDir, `server-${backend}`);
  rmSync(dataDir, { recursive: true, force: true });
  options.log(`analytics/${backend}: starting the server`);
  const server = await startBenchServer({ dataDir, databaseUrl: run.databaseUrl, environment: { ...ANSWERS_AS_DUCKDB, ...run.environment } });
  try {
    options.log(`analytics/${backend}: ingesting the first ${sample.toLocaleString('en-US')} hits over HTTP (measured)`);
    const bodyCache = baselines.bodyCache;
    const measured = await ingestOverHttp({ server, dataset, from: 0, to: sample, concurrency: CLIENTS, prebuild: false, bodyCache, log: options.log });
    let rest: Awaited<ReturnType<typeof ingestOverHttp>> | undefined;
    if (sample < spec.hits) {
      options.log(`analytics/${backend}: loading the other ${(spec.hits - sample).toLocaleString('en-US')} hits over HTTP`);
      rest = await ingestOverHttp({ server, dataset, from: sample, to: spec.hits, concurrency: CLIENTS, prebuild: false, bodyCache, log: options.log });
    }
    const accepted = measured.accepted + (rest?.accepted ?? 0);
    const rejected = measured.rejected + (rest?.rejected ?? 0);
    options.log(`analytics/${backend}: first query right after the last hit was accepted (nothing waits for the fold), then the fold's catch-up`);
    const progress = foldProgress({ dataDir, databaseUrl: run.databaseUrl, analyticsUrl: run.environment?.DOCWRIGHT_ANALYTICS_URL });
    let timed: Awaited<ReturnType<typeof timeRepeated<VisitorsAnswer>>>;
    let first: { milliseconds: number; result: VisitorsAnswer };
    let firstCpuSeconds: number;
    let pendingAtFirst: number;
    let spooledAtFirst: number;
    let catchUp: { seconds: number | null; cpuSeconds: number };
    let reportMetrics: BenchMetric[];
    let live: Awaited<ReturnType<typeof timeLiveSite>>;
    try {
      spooledAtFirst = progress.spooledHits();
      const cpuBeforeFirst = await server.cpuSeconds();
      first = await timeOnce(() => queryVisitorsOverHttp(server, question));
      firstCpuSeconds = (await server.cpuSeconds()) - cpuBeforeFirst;
      // Counted after the answer (no fold step runs beside it), so that counting never competes with it.
      pendingAtFirst = await progress.pendingHits();
      const waited = await progress.waitUntilFolded(FOLD_WAIT_LIMIT_SECONDS);
      catchUp = { seconds: waited === null ? null : waited + first.milliseconds / 1000, cpuSeconds: (await server.cpuSeconds()) - cpuBeforeFirst };
      options.log(`analytics/${backend}: ${QUERY_RUNS.iterations} timed queries once folded`);
      timed = await timeRepeated(() => queryVisitorsOverHttp(server, question), QUERY_RUNS);
      options.log(`analytics/${backend}: the report endpoints, ${REPORT_RUNS.iterations} timed runs each`);
      reportMetrics = await timeReportEndpoints(server, question, baselines.duckdb.summary);
      options.log(
        `analytics/${backend}: ${LIVE_HITS.toLocaleString('en-US')} new hits on the range's last day, then ${QUERY_RUNS.iterations} timed queries at once (a live site)`,
      );
      live = await timeLiveSite(server, question, timed.lastResult, QUERY_RUNS.iterations);
    } finally {
      await progress.close();
    }
    const firstDifferences = compareAnswers(baselines.duckdb.answer, first.result);
    const differences = compareAnswers(baselines.duckdb.answer, timed.lastResult);
    const loadSeconds = measured.seconds + (rest?.seconds ?? 0);
    const endToEndRate = spec.hits / (loadSeconds + first.milliseconds / 1000);
    const rawBaseline = { name: 'raw better-sqlite3 insert', value: baselines.rawInsert.hitsPerSecond };
    const rawCpuBaseline = { name: 'raw better-sqlite3 insert', value: baselines.rawInsert.hitsPerCpuSecond };
    const cpuNote = backend === 'sqlite' ? undefined : `CPU of the Docwright process only; ${backendTitle(backend)}'s own processes are not counted`;
    const allCpuSeconds = measured.serverCpuSeconds + (rest?.serverCpuSeconds ?? 0) + firstCpuSeconds;
    const duckBaseline = { name: 'DuckDB', value: baselines.duckdb.p50 };
    const targets = TARGETS[backend];
    const big = spec.hits > INGEST_SAMPLE;
    const metrics = [
      metric({
        name: `ingest, HTTP, first ${shortCount(sample)} hits`,
        value: measured.hitsPerSecond,
        unit: 'hits/s',
        baseline: rawBaseline,
      }),
      metric({
        name: `ingest, HTTP, first ${shortCount(sample)} hits, per CPU-s`,
        value: sample / measured.serverCpuSeconds,
        unit: 'hits/CPU-s',
        baseline: rawCpuBaseline,
        ...(cpuNote === undefined ? {} : { note: cpuNote }),
      }),
    ];
    if (rest)
      metrics.push(
        metric({
          name: `ingest, HTTP, the ${shortCount(rest.hits)} hits after the first ${shortCount(sample)}`,
          value: rest.hitsPerSecond,
          unit: 'hits/s',
          baseline: rawBaseline,
          ...(targets ? { target: { of: 'ratio', comparison: 'at-least', limit: targets.ingestAfterFirstMillion } } : {}),
        }),
        metric({ name: `ingest, HTTP, all ${shortCount(spec.hits)} hits`, value: spec.hits / loadSeconds, unit: 'hits/s', baseline: rawBaseline }),
      );
    metrics.push(
      metric({
        name: `ingest until queryable (all ${shortCount(spec.hits)} hits + first exact answer)`,
        value: endToEndRate,
        unit: 'hits/s',
        baseline: rawBaseline,
        ...(targets ? { target: { of: 'ratio', comparison: 'at-least', limit: targets.untilQueryable } } : {}),
      }),
      metric({
        name: 'ingest until queryable, per CPU-s',
        value: spec.hits / allCpuSeconds,
        unit: 'hits/CPU-s',
        baseline: rawCpuBaseline,
        ...(cpuNote === undefined ? {} : { note: cpuNote }),
      }),
      metric({
        name: 'first exact visitors answer, from the last hit accepted',
        value: first.milliseconds,
        unit: 'ms',
        ...(targets ? { target: { of: 'value', comparison: 'at-most', limit: big ? targets.firstAnswerFull : targets.firstAnswerMillion } } : {}),
        note: `${pendingAtFirst.toLocaleString('en-US')} ${backend === 'clickhouse' ? `days with hits newer than the visitor cells when it was asked, counted from the day stamps; ${spooledAtFirst.toLocaleString('en-US')} hits still in the spool` : 'hits still unfolded when it was asked, counted from the raw table'}; ${firstCpuSeconds.toFixed(1)} CPU-s of the server`,
      }),
      metric({
        name: 'fold catch-up, from the last hit accepted until nothing is pending',
        value: catchUp.seconds === null ? Number.NaN : catchUp.seconds * 1000,
        unit: 'ms',
        note:
          catchUp.seconds === null
            ? `not done within ${FOLD_WAIT_LIMIT_SECONDS} s`
            : `background fold in the server, ${catchUp.cpuSeconds.toFixed(1)} CPU-s of the server from the first query on (the query included)`,
      }),
      metric({
        name: 'visitors query p50 once folded (30 days, totals + top 50)',
        value: timed.summary.p50,
        unit: 'ms',
        baseline: duckBaseline,
        target: { of: 'ratio', comparison: 'at-most', limit: 2 },
      }),
      metric({
        name: 'visitors query p50 once folded, ceiling',
        value: timed.summary.p50,
        unit: 'ms',
        ...(targets ? { target: { of: 'value', comparison: 'at-most', limit: targets.p50 } } : {}),
      }),
    );
    if (backend === 'clickhouse') {
      metrics.push(
        ...clickhouseTargetMetrics({ firstMs: first.milliseconds, firstLimitMs: big ? 5_000 : 1_000, endToEndRate, p50Ms: timed.summary.p50, rawBaseline }),
      );
    }
    metrics.push(
      metric({
        name: `visitors query p50, a live site (${LIVE_HITS.toLocaleString('en-US')} new hits on the range's last day)`,
        value: live.summary.p50,
        unit: 'ms',
        baseline: duckBaseline,
        note: `${QUERY_RUNS.iterations} queries back to back, the first as soon as the new hits were accepted; p95 ${live.summary.p95.toFixed(0)} ms; every answer counts the new visitors exactly`,
      }),
      metric({ name: 'visitors query p95', value: timed.summary.p95, unit: 'ms', baseline: { name: 'DuckDB', value: baselines.duckdb.summary.p95 } }),
      ...reportMetrics,
    );
    return {
      suite: 'analytics',
      title: `analytics on ${backendTitle(backend)}: ${spec.hits.toLocaleString('en-US')} hits, ${spec.visitors.toLocaleString('en-US')} visitors, ${spec.pages.toLocaleString('en-US')} pages, ${spec.days} days`,
      context: [
        `Server: real Docwright in its own process on 127.0.0.1, ${backend}${backend === 'postgres' ? ` (${POSTGRES_SETTINGS.join(', ')})` : backend === 'clickhouse' ? ` (${CLICKHOUSE_CONTEXT})` : ' (WAL, synchronous=NORMAL)'}; agent verification off (DuckDB classifies by User-Agent alone; its cost is the verification suite's).`,
        `Ingest: ${CLIENTS} concurrent keep-alive clients, ${EVENTS_PER_REQUEST.toLocaleString('en-US')} events per POST; every body of the whole load is serialized once per dataset into a cache file in bench/.data and streamed from it, so the load generator's JSON building (about 2 µs of CPU per hit, on the cores the server uses) is charged to no part of the load.`,
        `Raw insert baseline: the first ${shortCount(sample)} hits pre-encoded into analytics_hits by a prepared statement, 1,000 per transaction, in the bench process.`,
        'hits/CPU-s: hits per CPU second of the server process (or of the raw loop): steadier than hits/s when other work shares the machine.',
        `Query: GET …/visitors?dateFrom=${new Date(question.from).toISOString().slice(0, 10)}&dateTo=${new Date(question.to).toISOString().slice(0, 10)}&limit=${question.limit}, ${QUERY_RUNS.warmup} warm-up + ${QUERY_RUNS.iterations} timed runs; DuckDB in-process over the same rows (loaded in ${baselines.duckdb.loadSeconds.toFixed(1)} s), ${baselines.duckdb.summary.count} timed runs.`,
      ],
      metrics,
      notes: [
        `accepted ${accepted.toLocaleString('en-US')}, rejected ${rejected.toLocaleString('en-US')}; HTTP request latency p50 ${measured.latency.p50.toFixed(0)} ms, p95 ${measured.latency.p95.toFixed(0)} ms (measured sample).`,
        differences.length === 0
          ? `answers agree: Docwright and DuckDB return the same totals (${formatCounts(timed.lastResult.totals)}) and the same first ${timed.lastResult.visitors.length} pages in the same order.`
          : `ANSWERS DIFFER from DuckDB: ${differences.join('; ')}`,
        firstDifferences.length === 0
          ? 'the first answer (hits still unfolded) agrees with DuckDB too.'
          : `FIRST ANSWER DIFFERS from DuckDB: ${firstDifferences.join('; ')}`,
        ...(backend === 'sqlite' ? [`SQLite file after the load: ${fileSizeMb(join(dataDir, 'docwright.sqlite'))} MiB.`] : []),
      ],
    };
  } finally {
    await server.stop();
  }
}

function shortCount(count: number): string {
  return count >= 1_000_000 ? `${(count / 1_000_000).toLocaleString('en-US', { maximumFractionDigits: 1 })}M` : count.toLocaleString('en-US');
}

function formatCounts(counts: VisitorsAnswer['totals']): string {
  return `human ${counts.human.toLocaleString('en-US')}, ai ${counts.ai.toLocaleString('en-US')}, total ${counts.total.toLocaleString('en-US')}`;
}

function fileSizeMb(file: string): string {
  try {
    return (statSync(file).size / 2 ** 20).toFixed(0);
  } catch {
    return '?';
  }
}
