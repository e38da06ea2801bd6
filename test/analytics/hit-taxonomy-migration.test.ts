import { describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import { loadMigrations, migrate } from '../../src/db/migrator.js';
import { systemClock } from '../../src/core/clock.js';
import { BACKENDS, openTestDatabase } from '../helpers/test-database.js';

describe.each(BACKENDS)('migration 013, the hit taxonomy columns [%s]', (dialect) => {
  test('hits stored before it read category, verification and read kind 0 and no status or referral; new hits store them', async () => {
    const t = await openTestDatabase(dialect, { migrate: false });
    try {
      const all = loadMigrations(dialect);
      const before = all.filter((migration) => migration.version < 13);
      expect(all.find((migration) => migration.version === 13)?.name).toBe('hit-taxonomy');
      await migrate(t.database, systemClock, before);
      const { db } = t.database;
      // PostgreSQL hits name the ingest batch that wrote them.
      const batch = sql.raw(dialect === 'postgres' ? ', batch' : '');
      const batchValue = sql.raw(dialect === 'postgres' ? ', 1' : '');
      await sql`insert into analytics_hits (site, at, page, visitor, class, markdown_accept, classifier_version${batch}) values (1, 0, 1, 9, 1, 0, 1${batchValue})`.execute(
        db,
      );
      await migrate(t.database, systemClock, all);
      await sql`insert into analytics_hits (site, at, page, visitor, class, markdown_accept, classifier_version, category, verification, read_kind, status, referral${batch})
        values (1, 1, 1, 9, 2, 1, 1, 4, 1, 1, 404, 7${batchValue})`.execute(db);
      const rows = await db.selectFrom('analytics_hits').select(['at', 'category', 'verification', 'read_kind', 'status', 'referral']).orderBy('at').execute();
      expect(rows.map((row) => ({ ...row, at: Number(row.at) }))).toEqual([
        { at: 0, category: 0, verification: 0, read_kind: 0, status: null, referral: null },
        { at: 1, category: 4, verification: 1, read_kind: 1, status: 404, referral: 7 },
      ]);
    } finally {
      await t.close();
    }
  });
});
