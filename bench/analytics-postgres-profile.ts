/**
 * Where PostgreSQL spends a visitors report and a fold step, on a live database (for
 * example a benchmark's, while its fold catches up): every statement the real code runs
 * is shown with EXPLAIN (ANALYZE, BUFFERS) and its wall time. Nothing is changed: the
 * fold step runs in a transaction that is rolled back, the report is read-only.
 *
 *   node --import tsx bench/analytics-postgres-profile.ts --url postgres://… [--site 1]
 *     [--from 2026-09-01 --to 2026-10-01] [--fold-hits 20000] [--skip-report] [--skip-fold]
 *
 * An EXPLAIN ANALYZE runs its statement, so each report query runs twice (once explained,
 * once for the rows the report needs); fold statements run once, explained.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Database } from '../src/db/database.js';
import { PostgresAnalyticsStore } from '../src/analytics/postgres-analytics-store.js';
import { DimensionNames } from '../src/analytics/dimension-names.js';
import { planRange } from '../src/analytics/range-plan.js';
import { visitorsReport } from '../src/analytics/visitors-report.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    site: { type: 'string', default: '1' },
    from: { type: 'string', default: '2026-09-01' },
    to: { type: 'string', default: '2026-10-01' },
    'fold-hits': { type: 'string', default: '20000' },
    'skip-report': { type: 'boolean', default: false },
    'skip-fold': { type: 'boolean', default: false },
  },
});
if (values.url === undefined) throw new Error('--url is required');

const EXPLAINABLE = /^\s*(with|insert|update|delete|select)\b/i;
/** Statements whose rows the code needs, or that only read bookkeeping. */
const RUN_PLAIN = /pg_advisory|brin_summarize|delete from analytics_ingest_batches|string_agg\(id::text/i;

type Query = (text: unknown, values?: unknown) => Promise<pg.QueryResult>;

/** A client whose statements are explained; `commit` becomes `rollback` when `dryRun`. */
function profiledClient(client: pg.PoolClient, mode: { dryRun: boolean; needRows: boolean }): pg.PoolClient {
  const query = client.query.bind(client) as Query;
  const profiled: Query = async (text, parameters) => {
    const sql = typeof text === 'string' ? text : (text as { text: string }).text;
    const args = typeof text === 'string' ? parameters : (text as { values?: unknown }).values;
    if (mode.dryRun && /^\s*commit\s*$/i.test(sql)) return query('rollback');
    if (!EXPLAINABLE.test(sql) || RUN_PLAIN.test(sql)) return query(text, parameters);
    const started = performance.now();
    const plan = await query(`explain (analyze, buffers, settings) ${sql}`, args);
    const explainedMs = performance.now() - started;
    console.log(`\n--- ${explainedMs.toFixed(0)} ms: ${sql.replace(/\s+/g, ' ').slice(0, 160)}`);
    for (const row of plan.rows as Array<Record<string, string>>) console.log(row['QUERY PLAN']);
    if (!mode.needRows) return { ...plan, rows: [], rowCount: 0 };
    return query(text, parameters);
  };
  return new Proxy(client, { get: (target, key) => (key === 'query' ? profiled : Reflect.get(target, key)) as unknown });
}

function profiledDatabase(pool: pg.Pool, mode: { dryRun: boolean; needRows: boolean }): Database {
  const wrapped = new Proxy(pool, {
    get: (target, key) => (key === 'connect' ? async () => profiledClient(await target.connect(), mode) : (Reflect.get(target, key) as unknown)),
  });
  return { dialect: 'postgres', raw: { dialect: 'postgres', pool: wrapped, url: values.url! } } as unknown as Database;
}

const pool = new pg.Pool({ connectionString: values.url, max: 2 });
const site = Number(values.site);
try {
  const pending = await pool.query<{ batches: string; hits: string }>(
    'select count(*) as batches, coalesce(sum(hits), 0) as hits from analytics_ingest_batches',
  );
  console.log(`pending: ${pending.rows[0]!.batches} batches, ${pending.rows[0]!.hits} hits`);
  if (!values['skip-report']) {
    const store = new PostgresAnalyticsStore(profiledDatabase(pool, { dryRun: false, needRows: true }));
    const plan = planRange(Date.parse(values.from), Date.parse(values.to));
    const started = performance.now();
    const result = await store.read((reader) => visitorsReport(reader, new DimensionNames(store), site, plan, { limit: 50, offset: 0 }));
    console.log(`\nreport (every query twice): ${(performance.now() - started).toFixed(0)} ms, totals ${JSON.stringify(result.totals)}`);
  }
  if (!values['skip-fold']) {
    const store = new PostgresAnalyticsStore(profiledDatabase(pool, { dryRun: true, needRows: false }));
    const started = performance.now();
    // One step only: stop after the first chunk. Rolled back, so the batches stay pending.
    const folded = await store.fold(Number(values['fold-hits']), () => Promise.resolve(false));
    console.log(`\nfold step of ${folded} hits (explained, rolled back): ${(performance.now() - started).toFixed(0)} ms`);
  }
} finally {
  await pool.end();
}
