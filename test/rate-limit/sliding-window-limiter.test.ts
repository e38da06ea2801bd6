import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { isDocwrightError } from '../../src/core/errors.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { SlidingWindowLimiter, type RateLimitState } from '../../src/rate-limit/sliding-window-limiter.js';
import { createSeededRandom } from '../../bench/lib/seeded-random.js';
import { BACKENDS, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { seedAcceptedHits, windowPlanCost } from '../helpers/rate-limit-window.js';

const WINDOW_MS = 10_000;

/** The definition: every accepted hit kept, counted when inside (now - window, now]. */
class OracleLimiter {
  private readonly hits: number[] = [];

  state(now: number, limit: number): Omit<RateLimitState, 'policy' | 'windowSeconds'> {
    const inside = this.hits.filter((at) => at > now - WINDOW_MS);
    const freeing = inside[Math.max(0, inside.length - limit)];
    return {
      limit,
      remaining: Math.max(0, limit - inside.length),
      resetSeconds: freeing === undefined ? 0 : Math.max(1, Math.ceil((freeing + WINDOW_MS - now) / 1000)),
    };
  }

  consume(now: number, limit: number): Omit<RateLimitState, 'policy' | 'windowSeconds'> | 'refused' {
    const inside = this.hits.filter((at) => at > now - WINDOW_MS);
    if (inside.length >= limit) return 'refused';
    const at = Math.max(now, this.hits.at(-1) ?? now);
    this.hits.push(at);
    const oldest = inside[0] ?? at;
    return { limit, remaining: limit - inside.length - 1, resetSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
  }
}

describe.each(BACKENDS)('SlidingWindowLimiter [%s]', (dialect) => {
  let t: TestDatabase;
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  beforeEach(async () => {
    t = await openTestDatabase(dialect);
    await sql`insert into projects (id, name, repository, ref, forge, created_at, updated_at) values ('p', 'Docs', '/srv/docs', 'main', 'local', 1, 1)`.execute(
      t.database.db,
    );
  });
  afterEach(async () => t.close());

  const charge = async (limiter: SlidingWindowLimiter, limit: number) => {
    try {
      const state = await writeTransaction(t.database, (executor) => limiter.consume(executor, 'p', limit));
      return { limit: state.limit, remaining: state.remaining, resetSeconds: state.resetSeconds };
    } catch (error) {
      if (isDocwrightError(error) && error.code === 'rate_limited') return 'refused' as const;
      throw error;
    }
  };

  test('answers exactly as the definition through a random walk of time and limit changes, keeping at most the largest limit in rows', async () => {
    const limiter = new SlidingWindowLimiter(t.database, clock, 'agent', WINDOW_MS);
    const oracle = new OracleLimiter();
    const random = createSeededRandom(12);
    const steps = [0, 0, 1, 499, 999, 1_000, 2_500, 9_999, 10_000, 25_000];
    const limits = [1, 3, 5, 8];
    let limit = 5;
    let refusals = 0;
    for (let step = 0; step < 300; step += 1) {
      clock.advance(steps[Math.floor(random() * steps.length)]!);
      if (random() < 0.08) limit = limits[Math.floor(random() * limits.length)]!;
      const expected = oracle.consume(clock.now(), limit);
      expect(await charge(limiter, limit), `step ${step}, limit ${limit}`).toEqual(expected);
      if (expected === 'refused') {
        refusals += 1;
        const peeked = await limiter.peek('p', limit);
        expect({ limit: peeked.limit, remaining: peeked.remaining, resetSeconds: peeked.resetSeconds }, `peek at step ${step}`).toEqual(
          oracle.state(clock.now(), limit),
        );
      }
      const rows = await t.database.db
        .selectFrom('rate_limit_hits')
        .select(({ fn }) => fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(rows.n)).toBeLessThanOrEqual(8);
    }
    // The walk has to exercise both answers to prove anything.
    expect(refusals).toBeGreaterThan(30);
    expect(refusals).toBeLessThan(270);
  });

  test('a lowered limit refuses until the window holds fewer hits than the new limit; the first hit after deletes the surplus', async () => {
    const limiter = new SlidingWindowLimiter(t.database, clock, 'agent', WINDOW_MS);
    for (let index = 0; index < 6; index += 1) {
      await charge(limiter, 10);
      clock.advance(1_000);
    }
    // Hits at 0…5 s; now 6 s. Limit 2: 6 inside, room when the 5th from the end (at 4 s) has gone.
    expect(await charge(limiter, 2)).toBe('refused');
    expect((await limiter.peek('p', 2)).resetSeconds).toBe(8);
    clock.advance(8_000);
    expect(await charge(limiter, 2)).toEqual({ limit: 2, remaining: 0, resetSeconds: 1 });
    const seqs = await t.database.db.selectFrom('rate_limit_hits').select('seq').orderBy('seq').execute();
    expect(seqs.map((row) => Number(row.seq))).toEqual([6, 7]);
    // Raised again: the old hits are gone, but they had left the window anyway.
    expect(await charge(limiter, 10)).toEqual({ limit: 10, remaining: 7, resetSeconds: 1 });
  });

  test('a process whose clock lags cannot make a hit leave the window early, nor hide the ones after it', async () => {
    const limiter = new SlidingWindowLimiter(t.database, clock, 'agent', WINDOW_MS);
    const lagging = new SlidingWindowLimiter(t.database, new ManualClock(clock.now() - 5_000), 'agent', WINDOW_MS);
    expect(await charge(limiter, 3)).not.toBe('refused');
    expect(await charge(lagging, 3)).not.toBe('refused');
    clock.advance(1_000);
    expect(await charge(limiter, 3)).not.toBe('refused');
    // All three are inside the window on either clock; the lagging hit was stored at the
    // time of the one before it.
    clock.advance(2_000);
    expect(await charge(limiter, 3)).toBe('refused');
    expect((await limiter.peek('p', 3)).resetSeconds).toBe(7);
  });

  test('a charge rolls back with the transaction it was made in', async () => {
    const limiter = new SlidingWindowLimiter(t.database, clock, 'agent', WINDOW_MS);
    await charge(limiter, 3);
    await expect(
      writeTransaction(t.database, async (executor) => {
        await limiter.consume(executor, 'p', 3);
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect((await limiter.peek('p', 3)).remaining).toBe(2);
  });

  test('the cost of a charge does not grow with the hits in the window (plan and pages read)', async () => {
    const limiter = new SlidingWindowLimiter(t.database, clock, 'agent', 3_600_000);
    const costs: number[] = [];
    for (const hits of [10, 1_000, 100_000]) {
      await sql`delete from rate_limit_hits`.execute(t.database.db);
      await seedAcceptedHits(t.database, 'p', 'agent', hits, clock.now() - 1_800_000, 100_000);
      const cost = await windowPlanCost(t.database, 'p', 'agent', clock.now() - 3_600_000);
      // SQLite reports no page counts; its plan must search the indexes, never scan or sort.
      // PostgreSQL rightly scans a table of a page or two; from 1,000 rows on it must seek.
      if (dialect === 'sqlite' || hits >= 1_000) expect(cost.plan, `${hits} hits`).not.toMatch(/\bSCAN rate_limit_hits\b|TEMP B-TREE|Seq Scan|Sort/);
      costs.push(cost.pages);
      expect((await limiter.peek('p', 100_000)).remaining).toBe(100_000 - hits);
    }
    if (dialect === 'postgres') {
      // Two index descents and their heap pages: a level deeper at most from 1,000 to
      // 100,000 rows (a scan of the window would read hundreds of pages).
      expect(costs[2]!).toBeLessThanOrEqual(costs[1]! + 4);
      expect(costs[2]!).toBeLessThan(16);
    }
  });
});
