import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { Database } from '../../src/db/database.js';
import { openPostgresDatabase } from '../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { SharedWindowLimiter } from '../../src/rate-limit/shared-window-limiter.js';
import { BACKENDS, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const SETTINGS = { bucket: 'test', limit: 50, windowMs: 60_000 };

describe.each(BACKENDS)('SharedWindowLimiter [%s]', (dialect) => {
  let t: TestDatabase;
  let other: Database;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 10));
  beforeEach(async () => {
    t = await openTestDatabase(dialect);
    // Another process's connections to the same database.
    other = dialect === 'postgres' ? openPostgresDatabase(t.location, { maxConnections: 3 }) : openSqliteDatabase(t.location);
  });
  afterEach(async () => {
    await other.close();
    await t.close();
  });

  test('two processes taking at once for the same subjects: exactly the limit passes per subject', async () => {
    const limiters = [new SharedWindowLimiter(t.database, clock, SETTINGS), new SharedWindowLimiter(other, clock, SETTINGS)];
    const subjects = ['a', 'b', 'c'];
    const answers = await Promise.all(
      Array.from({ length: 240 }, async (_, index) => ({
        subject: subjects[index % 3]!,
        retry: await limiters[Math.floor(index / 3) % 2]!.take(subjects[index % 3]!),
      })),
    );
    for (const subject of subjects) {
      const mine = answers.filter((answer) => answer.subject === subject);
      expect(
        mine.filter((answer) => answer.retry === 0),
        subject,
      ).toHaveLength(50);
      // Ten seconds into the minute: fifty left.
      expect(new Set(mine.filter((answer) => answer.retry > 0).map((answer) => answer.retry))).toEqual(new Set([50]));
    }
  });

  test('a new window starts over, and the counters of windows before the previous one are deleted', async () => {
    const limiter = new SharedWindowLimiter(t.database, clock, { ...SETTINGS, limit: 2 });
    expect([await limiter.take('a'), await limiter.take('a'), await limiter.take('a')]).toEqual([0, 0, 50]);
    // Over the limit: answered from memory for the rest of the window, the counter untouched.
    expect(await limiter.take('a')).toBe(50);
    expect((await t.database.db.selectFrom('rate_limit_windows').select('hits').executeTakeFirstOrThrow()).hits).toBe(3);
    clock.advance(49_999);
    expect(await limiter.take('a')).toBe(1);
    clock.advance(1);
    expect(await limiter.take('a')).toBe(0);
    clock.advance(60_000);
    expect(await limiter.take('a')).toBe(0);
    await limiter.settled();
    const windows = await t.database.db.selectFrom('rate_limit_windows').select(['window_start', 'hits']).orderBy('window_start').execute();
    // The first window (12:00) went; 12:01 stays while a lagging process may still count in it.
    expect(windows.map((row) => ({ start: Number(row.window_start), hits: row.hits }))).toEqual([
      { start: Date.UTC(2026, 5, 1, 12, 1), hits: 1 },
      { start: Date.UTC(2026, 5, 1, 12, 2), hits: 1 },
    ]);
  });

  test('a database that cannot count fails the take', async () => {
    const limiter = new SharedWindowLimiter(other, clock, SETTINGS);
    await other.close();
    await expect(limiter.take('a')).rejects.toThrow();
  });
});
