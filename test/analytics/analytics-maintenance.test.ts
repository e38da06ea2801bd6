import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { PRUNE_DEFER_PENDING_HITS, startAnalyticsMaintenance } from '../../src/analytics/analytics-maintenance.js';
import { DocwrightError } from '../../src/core/errors.js';

/** A service whose backlog the test sets; records prunes. */
function fakeService(reclassify: () => Promise<unknown> = () => Promise.resolve(null)) {
  const state = { pending: 0, prunes: 0, reclassifications: 0, rangesChanged: null as (() => void) | null };
  const service = {
    pendingHits: () => Promise.resolve(state.pending),
    prune: () => {
      state.prunes++;
      return Promise.resolve({ hits: 0, eventIds: 0, visitDays: 0 });
    },
    reclassify: () => {
      state.reclassifications++;
      return reclassify();
    },
    verification: {
      onRangesChanged: (listener: () => void) => {
        state.rangesChanged = listener;
        return () => (state.rangesChanged = null);
      },
    },
  } as unknown as AnalyticsService;
  return { service, state };
}

const logger = { info: () => {}, error: () => {} };

describe('scheduled analytics maintenance', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('prunes a minute after start when the fold is not behind', async () => {
    const { service, state } = fakeService();
    const maintenance = startAnalyticsMaintenance(service, logger);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(state.prunes).toBe(0);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(state.prunes).toBe(1);
    maintenance.stop();
  });

  test('waits while a bulk load is unfolded (a prune would fold it all in the foreground), then prunes', async () => {
    const { service, state } = fakeService();
    state.pending = PRUNE_DEFER_PENDING_HITS + 1;
    const maintenance = startAnalyticsMaintenance(service, logger);
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(state.prunes).toBe(0);
    // The background fold has caught up (to what a prune folds in a moment).
    state.pending = PRUNE_DEFER_PENDING_HITS;
    await vi.advanceTimersByTimeAsync(61_000);
    expect(state.prunes).toBe(1);
    maintenance.stop();
  });

  test('reclassifies after the first prune, and again when the published ranges change', async () => {
    const done = { state: 'done', sites: 0, sitesDone: 0, hitsRewritten: 0 };
    const { service, state } = fakeService(() => Promise.resolve(done));
    const maintenance = startAnalyticsMaintenance(service, logger);
    await vi.advanceTimersByTimeAsync(61_000);
    expect([state.prunes, state.reclassifications]).toEqual([1, 1]);
    // The next hourly run: nothing new to reclassify.
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect([state.prunes, state.reclassifications]).toEqual([2, 1]);
    state.rangesChanged?.();
    await vi.advanceTimersByTimeAsync(0);
    expect([state.prunes, state.reclassifications]).toEqual([3, 2]);
    maintenance.stop();
    expect(state.rangesChanged).toBeNull();
  });

  test('a store that cannot reclassify (a ClickHouse cluster) is said once, as info, not failed at every run', async () => {
    const unsupported = new DocwrightError('reclassification_unsupported', 'Not on a cluster.', { status: 501 });
    const { service, state } = fakeService(() => Promise.reject(unsupported));
    const said = { info: [] as string[], error: [] as unknown[] };
    const recording = { info: (...args: unknown[]) => said.info.push(String(args.at(-1))), error: (...args: unknown[]) => said.error.push(args) };
    const maintenance = startAnalyticsMaintenance(service, recording);
    await vi.advanceTimersByTimeAsync(3 * 60 * 60_000);
    expect(state.prunes).toBe(4);
    expect(state.reclassifications).toBe(1);
    expect(said.error).toEqual([]);
    expect(said.info).toEqual([expect.stringMatching(/reclassification is not available on this store/)]);
    maintenance.stop();
  });

  test('stop cancels a deferred prune', async () => {
    const { service, state } = fakeService();
    state.pending = PRUNE_DEFER_PENDING_HITS + 1;
    const maintenance = startAnalyticsMaintenance(service, logger);
    await vi.advanceTimersByTimeAsync(61_000);
    maintenance.stop();
    state.pending = 0;
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(state.prunes).toBe(0);
  });
});
