import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit, ingestInBatches, kitAnalyticsService } from '../helpers/analytics-kit.js';
import { bruteForceClasses, bruteForceVisitors, oracleOrder, type OracleHit } from '../helpers/analytics-oracle.js';
import { BACKENDS } from '../helpers/test-database.js';

/**
 * Reports answer from the rollups plus the hits not folded yet: they never fold, never
 * wait for a fold, and are exact before, during and after one. Not on ClickHouse: it has no
 * fold (materialized views fill its rollups as each insert returns, `pendingHits` is always
 * 0), and its answers right after ingest are held to the oracle by visitors-property and
 * ai-reports-property on every analytics backend.
 */
describe.each(BACKENDS)('reports over unfolded hits [%s]', (dialect) => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  let today: number;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
    today = Math.floor(kit.t.clock.now() / DAY);
    // One hit per fold step, and no background fold: the test decides when folds run.
    service = kitAnalyticsService(kit, { chunkSize: 1, idleMs: 3_600_000, maxDelayMs: 3_600_000 });
  });
  afterEach(async () => {
    await service.close();
    await kit.close();
  });

  const agents = [USER_AGENTS.human, USER_AGENTS.ai, USER_AGENTS.bot, USER_AGENTS.aiTraining];
  /** 120 hits over 4 days, 9 visitors, 4 pages, every class; deterministic. */
  const hits: OracleHit[] = Array.from({ length: 120 }, (_, index) => ({
    at: 0,
    path: `/p${index % 4}`,
    visitor: `v${(index * 7) % 9}`,
    userAgent: agents[(index * 5) % agents.length]!,
  }));
  const place = () => hits.forEach((hit, index) => (hit.at = (today - 1 - (index % 4)) * DAY + index * 60_000));
  const send = (part: readonly OracleHit[]) => ingestInBatches(service, kit.projectId, part);
  const check = async (stored: readonly OracleHit[]) => {
    const from = (today - 3) * DAY + DAY / 3;
    const to = today * DAY;
    const expected = bruteForceVisitors(stored, null, null);
    const answer = await service.visitors(kit.projectId, { limit: 250 });
    expect(answer.totals).toEqual(expected.totals);
    expect(answer.visitors).toEqual(oracleOrder(expected.visitors));
    // A date-time bound: an edge from raw hits beside whole days partly unfolded.
    expect((await service.visitors(kit.projectId, { from, to, limit: 250 })).totals).toEqual(bruteForceVisitors(stored, from, to).totals);
    expect((await service.traffic(kit.projectId, { from, to })).classes).toEqual(bruteForceClasses(stored, from, to));
    expect((await service.traffic(kit.projectId)).classes).toEqual(bruteForceClasses(stored, null, null));
    const daily = await service.daily(kit.projectId, { from: (today - 5) * DAY, to: (today + 1) * DAY });
    for (const entry of daily.days) {
      const dayStart = Date.parse(`${entry.date}T00:00:00Z`);
      expect({ human: entry.human, ai: entry.ai, total: entry.total }).toEqual(bruteForceVisitors(stored, dayStart, dayStart + DAY).totals);
    }
  };

  test('reports leave pending hits pending and count them exactly, folded in part or not at all', async () => {
    place();
    await send(hits.slice(0, 60));
    await check(hits.slice(0, 60));
    expect(await service.store.pendingHits()).toBe(60);
    // Part folded (whole visit days known to the rollups), then late hits on the same days.
    await service.store.fold(25, () => Promise.resolve(false));
    await send(hits.slice(60));
    const pending = await service.store.pendingHits();
    expect(pending).toBeGreaterThan(60);
    await check(hits);
    expect(await service.store.pendingHits()).toBe(pending);
    await service.fold();
    expect(await service.store.pendingHits()).toBe(0);
    await check(hits);
  });

  test('a report runs and is exact while a fold is still going, one step per hit (SQLite) or batch (PostgreSQL)', async () => {
    place();
    await send(hits);
    let foldDone = false;
    const folding = service.fold().then((count) => {
      foldDone = true;
      return count;
    });
    const answer = await service.visitors(kit.projectId, { limit: 250 });
    expect(foldDone).toBe(false);
    expect(answer.totals).toEqual(bruteForceVisitors(hits, null, null).totals);
    expect(await folding).toBe(hits.length);
    await check(hits);
  });
});
