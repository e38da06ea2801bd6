import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import type { AnalyticsReader } from '../../src/analytics/analytics-store.js';
import { foldedCheck, rawPagesAndSiteSql, type FoldedCheck } from '../../src/analytics/postgres-pages-and-site.js';
import { planRange } from '../../src/analytics/range-plan.js';
import { rawHits, type GroupCountsRow } from '../../src/analytics/raw-hit-queries.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit, ingestInBatches, kitAnalyticsService } from '../helpers/analytics-kit.js';
import { bruteForceVisitors, oracleOrder, type OracleHit } from '../helpers/analytics-oracle.js';

/**
 * PostgreSQL's visitors report leaves out visitors the rollups already count either by
 * probing the visit days per group or by sorting the folded visit days with the raw hits
 * (postgres-pages-and-site.ts). The two must give the same rows in any state, and the
 * choice must follow the folded and unfolded hit counts.
 */
describe('PostgreSQL visitors report: probe and merge of folded visit days [postgres]', () => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  let today: number;
  beforeEach(async () => {
    kit = await createAnalyticsKit('postgres');
    today = Math.floor(kit.t.clock.now() / DAY);
    service = kitAnalyticsService(kit, { chunkSize: 1, idleMs: 3_600_000, maxDelayMs: 3_600_000 });
  });
  afterEach(async () => {
    await service.close();
    await kit.close();
  });

  const agents = [USER_AGENTS.human, USER_AGENTS.ai, USER_AGENTS.bot];
  /** 90 hits over 3 days, 11 visitors, 5 pages; a visitor comes back to a page on later days. */
  const hits: OracleHit[] = Array.from({ length: 90 }, (_, index) => ({
    at: 0,
    path: `/p${index % 5}`,
    visitor: `v${(index * 4) % 11}`,
    userAgent: agents[(index * 7) % agents.length]!,
  }));
  const send = (part: readonly OracleHit[]) => ingestInBatches(service, kit.projectId, part);

  /** The choice the report makes now, and the rows of every exact way, for whole days and for a range with an edge. */
  const snapshot = async () => {
    const site = (await service.store.siteOf(kit.projectId))!;
    return service.store.read(async (reader: AnalyticsReader) => {
      const results: Array<{ check: FoldedCheck; rows: Record<FoldedCheck, GroupCountsRow[]> }> = [];
      for (const [from, to] of [
        [(today - 3) * DAY, today * DAY],
        [(today - 3) * DAY + DAY / 3, today * DAY],
      ] as const) {
        const plan = planRange(from, to);
        const raw = rawHits(reader, site, plan)!;
        const whole = [site, plan.fromDay, plan.toDay] as const;
        const run = async (check: FoldedCheck) => {
          const rows = await reader.select<GroupCountsRow>(rawPagesAndSiteSql(raw, check), check === 'none' ? raw.parameters : [...whole, ...raw.parameters]);
          return rows
            .map((row) => ({ dim: Number(row.dim), g1: Number(row.g1), g2: Number(row.g2), g3: Number(row.g3), g4: Number(row.g4) }))
            .sort((a, b) => a.dim - b.dim);
        };
        results.push({ check: await foldedCheck(reader, whole), rows: { none: await run('none'), probe: await run('probe'), merge: await run('merge') } });
      }
      return results;
    });
  };

  const expectExact = async (stored: readonly OracleHit[]) => {
    const expected = bruteForceVisitors(stored, null, null);
    const answer = await service.visitors(kit.projectId, { limit: 250 });
    expect(answer.totals).toEqual(expected.totals);
    expect(answer.visitors).toEqual(oracleOrder(expected.visitors));
  };

  test('nothing folded: none; a little folded: merge; mostly folded: probe; probe and merge agree throughout', async () => {
    hits.forEach((hit, index) => (hit.at = (today - 1 - (index % 3)) * DAY + index * 60_000));
    await send(hits.slice(0, 40));
    for (const { check } of await snapshot()) expect(check).toBe('none');

    // 10 of 40 hits folded: fewer than the 30 unfolded.
    await service.store.fold(10, () => Promise.resolve(false));
    for (const { check, rows } of await snapshot()) {
      expect(check).toBe('merge');
      expect(rows.merge).toEqual(rows.probe);
      // Some visitor is counted by the rollups already: without the check they would count twice.
      expect(rows.none).not.toEqual(rows.probe);
    }
    await expectExact(hits.slice(0, 40));

    // Everything folded, then 10 late hits: more folded than unfolded.
    await service.fold();
    await send(hits.slice(40, 50));
    for (const { check, rows } of await snapshot()) {
      expect(check).toBe('probe');
      expect(rows.merge).toEqual(rows.probe);
    }
    await expectExact(hits.slice(0, 50));

    // The rest: unfolded hits outnumber the folded ones again.
    await send(hits.slice(50));
    for (const { check, rows } of await snapshot()) {
      expect(check).toBe('merge');
      expect(rows.merge).toEqual(rows.probe);
    }
    await expectExact(hits);
  });
});
