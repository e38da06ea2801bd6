import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { PRUNE_DEFER_PENDING_HITS, startAnalyticsMaintenance } from '../../src/analytics/analytics-maintenance.js';

/** A service whose backlog the test sets; records prunes. */
function fakeService() {
  const state = { pending: 0, prunes: 0 };
  const service = {
    pendingHits: () => Promise.resolve(state.pending),
    prune: () => {
      state.prunes++;
      return Promise.resolve({ hits: 0, eventIds: 0, visitDays: 0 });
    },
    reclassify: () => Promise.resolve(null),
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
