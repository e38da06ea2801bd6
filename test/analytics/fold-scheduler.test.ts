import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { AnalyticsStore } from '../../src/analytics/analytics-store.js';
import { FoldScheduler } from '../../src/analytics/fold-scheduler.js';

/** A store whose fold has `pending` chunks of work and records how far it got. */
function fakeStore(pending: number) {
  const state = { pending, steps: 0, onStep: () => {} };
  const store = {
    async fold(_chunkSize: number, betweenChunks?: () => Promise<boolean>) {
      let folded = 0;
      while (state.pending > 0) {
        state.pending--;
        state.steps++;
        folded++;
        state.onStep();
        if (betweenChunks && !(await betweenChunks())) break;
      }
      return folded;
    },
  } as unknown as AnalyticsStore;
  return { store, state };
}

// The scheduler's timers and clock are faked: its decisions depend on milliseconds, and real
// timers on a loaded CI machine fire late enough to turn "quiet for 20 ms" into a different
// story (one such run failed). setImmediate stays real, so foldNow's yield still resolves.
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** Waits for a promise whose work waits on the faked timers (a fold's give-way pause). */
async function settle<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  void promise.finally(() => (done = true));
  while (!done) await vi.advanceTimersByTimeAsync(1);
  return promise;
}

describe('FoldScheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('folds in the background once ingestion is quiet', async () => {
    const { store, state } = fakeStore(5);
    const scheduler = new FoldScheduler(store, { idleMs: 20, maxDelayMs: 10_000 });
    scheduler.noteIngest();
    await sleep(5);
    expect(state.steps).toBe(0);
    await sleep(60);
    expect(state.pending).toBe(0);
    await settle(scheduler.close());
  });

  test('a background fold gives way to ingestion; a query fold does not', async () => {
    const { store, state } = fakeStore(10);
    const scheduler = new FoldScheduler(store, { idleMs: 10, maxDelayMs: 10_000 });
    // Each background step sees a new batch arrive, as under a steady stream of hits.
    state.onStep = () => scheduler.noteIngest();
    scheduler.noteIngest();
    await sleep(30);
    expect(state.steps).toBeGreaterThan(0);
    expect(state.pending).toBeGreaterThan(0);
    state.onStep = () => {};
    const folded = await settle(scheduler.foldNow());
    expect(state.pending).toBe(0);
    expect(folded).toBeGreaterThan(0);
    await settle(scheduler.close());
  });

  test('a background fold steps aside while reports run, and finishes once they are quiet', async () => {
    const { store, state } = fakeStore(10);
    const scheduler = new FoldScheduler(store, { idleMs: 15, maxDelayMs: 10_000 });
    scheduler.noteIngest();
    // A report starts during each step, as while a dashboard keeps asking.
    state.onStep = () => scheduler.noteRead();
    await sleep(40);
    expect(state.steps).toBeGreaterThan(0);
    expect(state.pending).toBeGreaterThan(0);
    state.onStep = () => {};
    await sleep(100);
    expect(state.pending).toBe(0);
    await settle(scheduler.close());
  });

  test('a background fold takes no further step while an ingest request is unfinished', async () => {
    const { store, state } = fakeStore(10);
    const scheduler = new FoldScheduler(store, { idleMs: 5, maxDelayMs: 10_000 });
    scheduler.noteIngest();
    let ended: (() => void) | undefined;
    // A request starts during the first step (its body still being prepared when the step ends).
    state.onStep = () => (ended ??= scheduler.ingestStarted());
    await sleep(60);
    expect(state.steps).toBe(1);
    state.onStep = () => {};
    ended!();
    scheduler.noteIngest();
    await sleep(100);
    expect(state.pending).toBe(0);
    await settle(scheduler.close());
  });

  test('a background fold takes no step while a long report runs, and folds once it has ended', async () => {
    const { store, state } = fakeStore(4);
    const scheduler = new FoldScheduler(store, { idleMs: 10, maxDelayMs: 10_000 });
    scheduler.noteIngest();
    // The report starts before the fold is due and outlasts the quiet period many times over.
    const ended = scheduler.readStarted();
    await sleep(200);
    expect(state.steps).toBe(0);
    ended();
    ended();
    await sleep(100);
    expect(state.pending).toBe(0);
    await settle(scheduler.close());
  });

  test('after a deadline step that gave way to a long report, the fold resumes once the report ends', async () => {
    const { store, state } = fakeStore(4);
    const scheduler = new FoldScheduler(store, { idleMs: 10, maxDelayMs: 50 });
    scheduler.noteIngest();
    const ended = scheduler.readStarted();
    await sleep(100);
    // The deadline took one step beside the report, then gave way.
    expect(state.steps).toBe(1);
    ended();
    await sleep(100);
    expect(state.pending).toBe(0);
    await settle(scheduler.close());
  });

  test('a report schedules no fold when none is owed', async () => {
    const { store, state } = fakeStore(3);
    const scheduler = new FoldScheduler(store, { idleMs: 5, maxDelayMs: 10 });
    scheduler.noteRead();
    await sleep(40);
    expect(state.steps).toBe(0);
    await settle(scheduler.close());
  });

  test('the deadline folds even while batches keep coming', async () => {
    const { store, state } = fakeStore(3);
    const scheduler = new FoldScheduler(store, { idleMs: 1_000, maxDelayMs: 30 });
    const stream = setInterval(() => scheduler.noteIngest(), 5);
    try {
      await sleep(80);
      expect(state.steps).toBeGreaterThan(0);
    } finally {
      clearInterval(stream);
      await settle(scheduler.close());
    }
  });
});
