import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { migrate } from '../../src/db/migrator.js';
import { recordUsage, usageFromColumns } from '../../src/jobs/job-usage.js';
import { BACKENDS, migrateBefore, openTestDatabase } from '../helpers/test-database.js';

const NOW = Date.UTC(2026, 11, 1, 12);

/** Migration 023: usage recorded before it reads as 0 cache writes, and new writes add up on top. */
describe.each(BACKENDS)('the cache-write-tokens migration [%s]', (dialect) => {
  it('keeps a month recorded before it, with 0 writes, and adds the writes recorded after', async () => {
    const t = await openTestDatabase(dialect, { migrate: false });
    try {
      await migrateBefore(t.database, 'cache-write-tokens');
      const db = t.database.db;
      await sql`insert into projects (id, name, repository, forge, created_at, updated_at) values ('p', 'Docs', '/docs', 'local', ${NOW}, ${NOW})`.execute(db);
      await sql`insert into project_usage_months (project_id, month, input_tokens, output_tokens, cached_input_tokens, cost_microusd, unpriced_tokens)
        values ('p', '2026-12', 1000, 50, 400, 900, 0)`.execute(db);
      await migrate(t.database, systemClock);

      const before = await db.selectFrom('project_usage_months').selectAll().where('project_id', '=', 'p').executeTakeFirstOrThrow();
      expect(usageFromColumns(before)).toEqual({ inputTokens: 1000, outputTokens: 50, cachedInputTokens: 400, cacheWriteTokens: 0, estimatedCostUsd: 0.0009 });

      await recordUsage(
        db,
        { projectId: 'p', jobId: 'no-job', turnId: 'no-turn' },
        { inputTokens: 2000, outputTokens: 10, cachedInputTokens: 500, cacheWriteTokens: 1200, costMicroUsd: 100 },
        NOW,
      );
      const after = await db.selectFrom('project_usage_months').selectAll().where('project_id', '=', 'p').executeTakeFirstOrThrow();
      expect(usageFromColumns(after)).toEqual({ inputTokens: 3000, outputTokens: 60, cachedInputTokens: 900, cacheWriteTokens: 1200, estimatedCostUsd: 0.001 });
    } finally {
      await t.close();
    }
  });
});
