import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { loadMigrations, migrate } from '../../src/db/migrator.js';
import { systemClock } from '../../src/core/clock.js';
import { LocalForge } from '../../src/git/forges/local-forge.js';
import { BACKENDS, openTestDatabase } from '../helpers/test-database.js';

describe.each(BACKENDS)('migration 005, share tokens of local pull requests [%s]', (dialect) => {
  test('pull requests opened before it get tokens, and the links already handed out carry them', async () => {
    const t = await openTestDatabase(dialect, { migrate: false });
    try {
      const before = await migrate(
        t.database,
        systemClock,
        loadMigrations(dialect).filter((migration) => migration.version < 5),
      );
      expect(before.current).toBe(4);
      const db = t.database.db;
      // Rows as the code before migration 005 wrote them (raw SQL: today's types know the new column).
      await sql`insert into projects (id, name, repository, ref, forge, created_at, updated_at) values
        ('p1', 'Local', '/srv/docs', 'main', 'local', 1, 1),
        ('p2', 'Hub', 'https://github.com/acme/docs', 'main', 'github', 1, 1)`.execute(db);
      await sql`insert into local_pull_requests (project_id, number, title, body, base, head, state, created_at, updated_at) values
        ('p1', 1, 'Docs: one', 'b', 'main', 'docwright/j1', 'open', 1, 1),
        ('p1', 2, 'Docs: two', 'b', 'main', 'docwright/j4', 'open', 1, 1)`.execute(db);
      await sql`insert into jobs (id, project_id, status, model, repository, ref, branch, pr_number, pr_link, created_at, updated_at) values
        ('j1', 'p1', 'completed', 'm', '/srv/docs', 'main', 'docwright/j1', 1, 'http://old.test/projects/p1/pulls/1', 1, 1),
        ('j4', 'p1', 'active', 'm', '/srv/docs', 'main', 'docwright/j4', 2, 'http://docs.test/projects/p1/pulls/2', 1, 1),
        ('j3', 'p1', 'completed', 'm', '/srv/docs', 'main', 'docwright/j3', null, null, 1, 1),
        ('j2', 'p2', 'completed', 'm', 'https://github.com/acme/docs', 'main', 'docwright/j2', 1, 'https://github.com/acme/docs/pull/1', 1, 1)`.execute(db);
      const events = [
        ['j1', 'pull_request', { number: 1, url: 'http://old.test/projects/p1/pulls/1', created: true }],
        ['j1', 'step', { sequence: 1, text: 'http://old.test/projects/p1/pulls/1' }],
        ['j4', 'pull_request', { number: 2, url: 'http://docs.test/projects/p1/pulls/2', created: true }],
        ['j2', 'pull_request', { number: 1, url: 'https://github.com/acme/docs/pull/1', created: true }],
      ] as const;
      for (const [jobId, type, data] of events) {
        await sql`insert into job_events (job_id, type, data, created_at) values (${jobId}, ${type}, ${JSON.stringify(data)}, 1)`.execute(db);
      }

      const after = await migrate(t.database, systemClock);
      expect(after.applied.map((migration) => migration.version)[0]).toBe(5);

      const pulls = await db.selectFrom('local_pull_requests').select(['number', 'share_token']).orderBy('number').execute();
      const [first, second] = pulls.map((pull) => pull.share_token);
      for (const token of [first, second]) expect(token).toMatch(dialect === 'sqlite' ? /^[0-9a-f]{48}$/ : /^[0-9a-f]{64}$/);
      expect(first).not.toBe(second);

      const links = Object.fromEntries((await db.selectFrom('jobs').select(['id', 'pr_link']).execute()).map((row) => [row.id, row.pr_link]));
      expect(links).toEqual({
        j1: `http://old.test/projects/p1/pulls/1?token=${first}`,
        j4: `http://docs.test/projects/p1/pulls/2?token=${second}`,
        j3: null,
        j2: 'https://github.com/acme/docs/pull/1',
      });
      const stored = await db.selectFrom('job_events').select(['job_id', 'type', 'data']).orderBy('id').execute();
      expect(stored.map((event) => [event.job_id, event.type, JSON.parse(event.data)])).toEqual([
        ['j1', 'pull_request', { number: 1, url: `http://old.test/projects/p1/pulls/1?token=${first}`, created: true }],
        ['j1', 'step', { sequence: 1, text: 'http://old.test/projects/p1/pulls/1' }],
        ['j4', 'pull_request', { number: 2, url: `http://docs.test/projects/p1/pulls/2?token=${second}`, created: true }],
        ['j2', 'pull_request', { number: 1, url: 'https://github.com/acme/docs/pull/1', created: true }],
      ]);

      // The forge accepts the migrated token, and a follow-up hands out the same link.
      const forge = new LocalForge(t.database, systemClock, 'http://docs.test');
      expect(await forge.findShared('p1', 1, first)).toMatchObject({ number: 1, title: 'Docs: one' });
      expect(await forge.findShared('p1', 1, second)).toBeNull();
      expect(await forge.findShared('p1', 1, undefined)).toBeNull();
      const updated = await forge.openOrUpdatePullRequest(
        { id: 'p1', repository: '/srv/docs', ref: 'main', credentials: null },
        { base: 'main', head: 'docwright/j1', title: 'Docs: one', body: 'b2' },
      );
      expect(updated).toEqual({ number: 1, created: false, url: `http://docs.test/projects/p1/pulls/1?token=${first}`, status: 'open' });
    } finally {
      await t.close();
    }
  });
});
