import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit, kitAnalyticsService } from '../helpers/analytics-kit.js';
import { bruteForceClasses, bruteForceVisitors, type OracleHit } from '../helpers/analytics-oracle.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';

/**
 * Many ingest calls at once, with folds (explicit, and the background fold in steps of
 * 7 hits) and queries running between them: on PostgreSQL these are concurrent
 * transactions committing in any order, and reports read while a fold commits. Whatever
 * the interleaving, every hit is counted exactly once, folded or not.
 */
describe.each(ANALYTICS_BACKENDS)('concurrent ingest, folds and queries [%s]', (dialect) => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
    // A tiny chunk, so folds take several steps while batches keep committing.
    service = kitAnalyticsService(kit, { chunkSize: 7, idleMs: 1 });
  });
  afterEach(async () => {
    await service.close();
    await kit.close();
  });

  const userAgents = [USER_AGENTS.human, USER_AGENTS.humanFirefox, USER_AGENTS.ai, USER_AGENTS.aiClaude];
  const hitArbitrary = fc.record({
    day: fc.integer({ min: 0, max: 5 }),
    page: fc.integer({ min: 0, max: 5 }),
    visitor: fc.integer({ min: 0, max: 25 }),
    agent: fc.integer({ min: 0, max: userAgents.length - 1 }),
  });

  test('every hit is counted once, whatever the interleaving', async () => {
    const today = Math.floor(kit.t.clock.now() / DAY);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(hitArbitrary, { minLength: 1, maxLength: 12 }), { minLength: 4, maxLength: 16 }), async (batches) => {
        const before = (await service.visitors(kit.projectId, { limit: 250 })).totals;
        const hitsBefore = (await service.traffic(kit.projectId)).classes.map((entry) => entry.hits);
        // Each run adds visitors of its own, so the runs of one test stay comparable.
        const run = `${Math.random()}`;
        const hits: OracleHit[] = batches.flat().map((hit) => ({
          at: (today - hit.day) * DAY - 60_000 * (hit.page + 1),
          path: `/p${hit.page}`,
          visitor: `${run}-${hit.visitor}`,
          userAgent: userAgents[hit.agent]!,
        }));
        let offset = 0;
        const work: Array<Promise<unknown>> = [];
        for (const [index, batch] of batches.entries()) {
          const events = hits
            .slice(offset, offset + batch.length)
            .map((hit) => ({ timestamp: new Date(hit.at).toISOString(), path: hit.path, visitorId: hit.visitor, userAgent: hit.userAgent }));
          offset += batch.length;
          work.push(service.ingest(kit.projectId, events).then((result) => expect(result.accepted).toBe(events.length)));
          if (index % 3 === 1) work.push(service.fold());
          if (index % 4 === 2) work.push(service.visitors(kit.projectId));
        }
        await Promise.all(work);
        const expected = bruteForceVisitors(hits, null, null).totals;
        const after = (await service.visitors(kit.projectId, { limit: 250 })).totals;
        expect({ human: after.human - before.human, ai: after.ai - before.ai, total: after.total - before.total }).toEqual(expected);
        const hitsAfter = (await service.traffic(kit.projectId)).classes.map((entry) => entry.hits);
        expect(hitsAfter.map((count, index) => count - hitsBefore[index]!)).toEqual(bruteForceClasses(hits, null, null).map((entry) => entry.hits));
        // Reports do not fold: whatever was left pending, a fold now changes no answer.
        await service.fold();
        expect(await service.store.pendingHits()).toBe(0);
        expect((await service.visitors(kit.projectId, { limit: 250 })).totals).toEqual(after);
        expect((await service.traffic(kit.projectId)).classes.map((entry) => entry.hits)).toEqual(hitsAfter);
      }),
      { numRuns: 8 },
    );
  }, 120_000);
});
