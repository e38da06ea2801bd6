import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { loadMigrations, migrate } from '../../src/db/migrator.js';
import { systemClock } from '../../src/core/clock.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { SlidingWindowLimiter } from '../../src/rate-limit/sliding-window-limiter.js';
import { BACKENDS, openTestDatabase } from '../helpers/test-database.js';

describe.each(BACKENDS)('migration 012, rate-limit hits by sequence [%s]', (dialect) => {
  test('the hits of the old table are numbered in time order per project and bucket, and the budget carries over', async () => {
    const t = await openTestDatabase(dialect, { migrate: false });
    try {
      const before = await migrate(
        t.database,
        systemClock,
        loadMigrations(dialect).filter((migration) => migration.version < 12),
      );
      expect(before.current).toBe(11);
      const db = t.database.db;
      const hour = 3_600_000;
      const now = 10 * hour;
      await sql`insert into projects (id, name, repository, ref, forge, created_at, updated_at) values ('p1', 'One', '/srv/one', 'main', 'local', 1, 1), ('p2', 'Two', '/srv/two', 'main', 'local', 1, 1)`.execute(
        db,
      );
      // As the old limiter wrote them: insertion order is not time order across processes.
      await sql`insert into rate_limit_hits (project_id, bucket, at) values
        ('p1', 'agent', ${now - 1_000}), ('p1', 'agent', ${now - 30 * 60_000}), ('p2', 'agent', ${now - 5_000}), ('p1', 'agent', ${now - 2 * hour})`.execute(
        db,
      );

      await migrate(t.database, systemClock);
      const rows = await db.selectFrom('rate_limit_hits').select(['project_id', 'seq', 'at', 'kept']).orderBy('project_id').orderBy('seq').execute();
      expect(rows.map((row) => ({ ...row, seq: Number(row.seq), at: Number(row.at), kept: Number(row.kept) }))).toEqual([
        { project_id: 'p1', seq: 1, at: now - 2 * hour, kept: 3 },
        { project_id: 'p1', seq: 2, at: now - 30 * 60_000, kept: 3 },
        { project_id: 'p1', seq: 3, at: now - 1_000, kept: 3 },
        { project_id: 'p2', seq: 1, at: now - 5_000, kept: 1 },
      ]);
      const limiter = new SlidingWindowLimiter(t.database, new ManualClock(now), 'agent');
      expect(await limiter.peek('p1', 3)).toMatchObject({ remaining: 1, resetSeconds: 30 * 60 });
      expect(await writeTransaction(t.database, (executor) => limiter.consume(executor, 'p1', 3))).toMatchObject({ remaining: 0 });
      // Accepted with limit 3: the hit three places back (outside the window) went.
      expect(
        (await db.selectFrom('rate_limit_hits').select('seq').where('project_id', '=', 'p1').orderBy('seq').execute()).map((row) => Number(row.seq)),
      ).toEqual([2, 3, 4]);
    } finally {
      await t.close();
    }
  });
});
