/**
 * `node --import tsx bench/rate-limit/agent-window.ts [--iterations N] [--backend sqlite|postgres|both]`
 *
 * The agent rate limit's cost per request with 10, 1,000 and 100,000 accepted hits inside
 * the window, on SQLite and PostgreSQL. Each case holds the window full at its size
 * (limit = hits), its hits evenly spaced: between two charges the clock moves one spacing,
 * the oldest hit leaves the window, so every charge is accepted and deletes one row, as at
 * a busy project's limit.
 * Also measured: a refused charge (the window full) and, for comparison, the read the
 * limiter did before migration 012 (every hit of the window, in time order).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { ManualClock } from '../../src/core/clock.js';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrator.js';
import { openPostgresDatabase } from '../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { SlidingWindowLimiter } from '../../src/rate-limit/sliding-window-limiter.js';
import { seedAcceptedHits } from '../../test/helpers/rate-limit-window.js';
import { startBenchPostgres, type BenchPostgres } from '../lib/embedded-postgres.js';
import { describeMachine, formatMachine } from '../lib/machine.js';
import { percentile } from '../lib/percentiles.js';

const WINDOW_MS = 3_600_000;
const SIZES = [10, 1_000, 100_000];

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : (process.argv[index + 1] ?? fallback);
}

async function timed(iterations: number, run: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const startedAt = performance.now();
    await run();
    samples.push((performance.now() - startedAt) * 1000);
  }
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function measure(database: Database, iterations: number): Promise<string[]> {
  const lines: string[] = [];
  await sql`insert into projects (id, name, repository, ref, forge, created_at, updated_at) values ('bench', 'Bench', '/srv/docs', 'main', 'local', 1, 1)`.execute(
    database.db,
  );
  for (const hits of SIZES) {
    await sql`delete from rate_limit_hits`.execute(database.db);
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
    const spacing = WINDOW_MS / hits;
    await seedAcceptedHits(database, 'bench', 'agent', hits, clock.now() - WINDOW_MS + spacing, hits, spacing);
    const limiter = new SlidingWindowLimiter(database, clock, 'agent', WINDOW_MS);
    const charge = () => writeTransaction(database, (executor) => limiter.consume(executor, 'bench', hits));
    const refusedCharge = () => charge().catch((error: unknown) => error);
    // Warm the statements and the cache, then the full window of accepted charges.
    for (let index = 0; index < 50; index += 1) {
      clock.advance(spacing);
      await charge();
    }
    const accepted = await timed(iterations, async () => {
      clock.advance(spacing);
      await charge();
    });
    const refused = await timed(iterations, refusedCharge);
    const oldRead = await timed(Math.min(iterations, 200), () =>
      database.db
        .selectFrom('rate_limit_hits')
        .select('at')
        .where('project_id', '=', 'bench')
        .where('bucket', '=', 'agent')
        .where('at', '>', clock.now() - WINDOW_MS)
        .orderBy('at')
        .execute(),
    );
    const kept = await database.db
      .selectFrom('rate_limit_hits')
      .select(({ fn }) => fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const format = (value: { p50: number; p95: number }) => `${value.p50.toFixed(0)} / ${value.p95.toFixed(0)} µs`;
    lines.push(
      `| ${database.dialect} | ${hits.toLocaleString('en')} | ${format(accepted)} | ${format(refused)} | ${format(oldRead)} | ${Number(kept.n).toLocaleString('en')} |`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const iterations = Number(option('iterations', '1000'));
  const backends = option('backend', 'both');
  process.stdout.write(`agent rate limit, ${iterations} charges per case; ${formatMachine(describeMachine())}\n\n`);
  process.stdout.write(
    '| backend | hits in window (= limit) | accepted charge p50 / p95 | refused charge p50 / p95 | old read of the window p50 / p95 | rows kept after |\n|---|---|---|---|---|---|\n',
  );
  if (backends !== 'postgres') {
    const directory = mkdtempSync(join(tmpdir(), 'docwright-bench-rate-'));
    const database = openSqliteDatabase(join(directory, 'docwright.sqlite'));
    try {
      await migrate(database, new ManualClock(0));
      for (const line of await measure(database, iterations)) process.stdout.write(`${line}\n`);
    } finally {
      await database.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }
  if (backends !== 'sqlite') {
    let postgres: BenchPostgres | undefined;
    try {
      postgres = await startBenchPostgres();
      const database = openPostgresDatabase(await postgres.createDatabase('bench_rate_limit'));
      try {
        await migrate(database, new ManualClock(0));
        for (const line of await measure(database, iterations)) process.stdout.write(`${line}\n`);
      } finally {
        await database.close();
      }
    } finally {
      await postgres?.stop();
    }
  }
  process.stdout.write(
    `\nload average after: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}\n`,
  );
}

await main();
