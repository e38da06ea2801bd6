import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import type { HitBatch, InsertHitsResult } from '../../src/analytics/analytics-store.js';
import { HitEncoder } from '../../src/analytics/hit-encoder.js';
import { prepareBatch } from '../../src/analytics/prepare-batch.js';
import { VisitorIdentity } from '../../src/analytics/visitor-identity.js';
import { createAnalyticsKit, kitAnalyticsService, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { TEST_SECRET } from '../helpers/test-app.js';

/**
 * PostgreSQL and ClickHouse write the batches that arrive together in one group (one
 * transaction; one event-id lookup and one spool commit). A value the validation did not
 * foresee and the backend refuses must fail its own batch only: here an event id with NUL
 * (PostgreSQL text cannot hold it) and an unpaired surrogate (no ClickHouse literal), stored
 * through the store directly, past the validation that now refuses it. Before, every batch
 * grouped with it failed too.
 */
describe.each(['postgres', 'clickhouse'] as const)('one bad batch in a group of batches [%s]', (backend) => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  beforeEach(async () => {
    kit = await createAnalyticsKit(backend);
    service = kitAnalyticsService(kit, { idleMs: 3_600_000, maxDelayMs: 3_600_000 });
  });
  afterEach(async () => {
    await service.close();
    await kit.close();
  });

  /** A batch of `size` valid hits as ingest hands it to the store, ids `${tag}-0…` when `withIds`. */
  const encodedBatch = async (tag: string, size: number, withIds: boolean): Promise<HitBatch> => {
    const now = kit.t.clock.now();
    const events = Array.from({ length: size }, (_, index) => ({
      ...(withIds ? { id: `${tag}-${index}` } : {}),
      path: `/${tag}`,
      visitorId: `${tag}-${index}`,
      userAgent: USER_AGENTS.human,
    }));
    const window = { receivedAt: now, latest: now + 300_000, earliest: now - 86_400_000 };
    const prepared = prepareBatch(events, { projectId: kit.projectId, rotateDaily: false, window }, new VisitorIdentity(TEST_SECRET));
    if (!prepared.ok) throw new Error(prepared.message);
    const site = await service.store.ensureSite(kit.projectId);
    return new HitEncoder(service.store).encode(site, prepared.columns);
  };

  test('the bad batch is refused alone; the batches grouped with it are stored', async () => {
    const good = await Promise.all(Array.from({ length: 10 }, (_, index) => encodedBatch(`good${index}`, 3 + index, index % 2 === 0)));
    const bad = await encodedBatch('bad', 2, true);
    bad.eventId[1] = 'bad\u0000\ud800';
    // All at once: the first batches go alone, the rest wait and are written as one group.
    const batches = [...good.slice(0, 5), bad, ...good.slice(5)];
    const results = await Promise.allSettled(batches.map((batch) => service.store.insertHits(batch)));
    expect(results[5]!.status).toBe('rejected');
    const stored = results.filter((_, index) => index !== 5).map((result) => (result.status === 'fulfilled' ? result.value : result.reason));
    expect(stored).toEqual(
      good
        .slice(0, 5)
        .concat(good.slice(5))
        .map((batch): InsertHitsResult => ({ stored: batch.count, duplicates: 0 })),
    );
    // Counted by the reports: every good hit, no hit of the bad batch.
    const views = new Map((await service.views(kit.projectId, { limit: 250 })).views.map((row) => [row.path, row.total]));
    good.forEach((batch, index) => expect(views.get(`/good${index}`)).toBe(batch.count));
    expect(views.has('/bad')).toBe(false);
  });
});
