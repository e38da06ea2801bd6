import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { loadMigrations, migrate } from '../../src/db/migrator.js';
import { systemClock } from '../../src/core/clock.js';
import { BACKENDS, openTestDatabase } from '../helpers/test-database.js';

describe.each(BACKENDS)('migration 009, pull request status [%s]', (dialect) => {
  test("jobs of local projects take their pull request's state; other jobs get null", async () => {
    const t = await openTestDatabase(dialect, { migrate: false });
    try {
      const before = await migrate(
        t.database,
        systemClock,
        loadMigrations(dialect).filter((migration) => migration.version < 9),
      );
      expect(before.current).toBe(8);
      const db = t.database.db;
      // Rows as the code before migration 009 wrote them.
      await sql`insert into projects (id, name, repository, ref, forge, created_at, updated_at) values
        ('p1', 'Local', '/srv/docs', 'main', 'local', 1, 1),
        ('p2', 'Hub', 'https://github.com/acme/docs', 'main', 'github', 1, 1)`.execute(db);
      await sql`insert into local_pull_requests (project_id, number, title, body, base, head, state, share_token, created_at, updated_at) values
        ('p1', 1, 'Docs: one', 'b', 'main', 'docwright/j1', 'open', 'token-one-token-one-token-one-123', 1, 1),
        ('p1', 2, 'Docs: two', 'b', 'main', 'docwright/j2', 'closed', 'token-two-token-two-token-two-123', 1, 1)`.execute(db);
      await sql`insert into jobs (id, project_id, status, model, repository, ref, branch, pr_number, pr_link, created_at, updated_at) values
        ('j1', 'p1', 'completed', 'm', '/srv/docs', 'main', 'docwright/j1', 1, 'http://docs.test/projects/p1/pulls/1?token=x', 1, 1),
        ('j2', 'p1', 'completed', 'm', '/srv/docs', 'main', 'docwright/j2', 2, 'http://docs.test/projects/p1/pulls/2?token=y', 1, 1),
        ('j3', 'p1', 'completed', 'm', '/srv/docs', 'main', 'docwright/j3', null, null, 1, 1),
        ('j4', 'p2', 'completed', 'm', 'https://github.com/acme/docs', 'main', 'docwright/j1', 1, 'https://github.com/acme/docs/pull/1', 1, 1)`.execute(db);

      const after = await migrate(t.database, systemClock);
      expect(after.applied.map((migration) => migration.version)[0]).toBe(9);
      const jobs = await db.selectFrom('jobs').select(['id', 'pr_status']).orderBy('id').execute();
      expect(jobs).toEqual([
        { id: 'j1', pr_status: 'open' },
        { id: 'j2', pr_status: 'closed' },
        { id: 'j3', pr_status: null },
        { id: 'j4', pr_status: null },
      ]);
      const pulls = await db.selectFrom('local_pull_requests').select(['number', 'merge_commit', 'merged_base', 'merged_head']).orderBy('number').execute();
      expect(pulls).toEqual([
        { number: 1, merge_commit: null, merged_base: null, merged_head: null },
        { number: 2, merge_commit: null, merged_base: null, merged_head: null },
      ]);
    } finally {
      await t.close();
    }
  });
});
