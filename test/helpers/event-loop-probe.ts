import { setTimeout as sleep } from 'node:timers/promises';

export interface Responsiveness<T> {
  result: T;
  /** Longest time between two consecutive /healthz answers (each poll waits ~10 ms after the previous answer). */
  maxGapMs: number;
  /** /healthz answers received while `work` ran. */
  answers: number;
  /** Wall time of `work`. */
  durationMs: number;
}

/**
 * Runs `work` in this process while polling `${url}/healthz` (served by this same
 * process) about every 10 ms, and reports how long the server went without answering.
 * Work that blocks the event loop shows up as a gap as long as the block; work on other
 * threads does not. A failed or non-200 poll fails the measurement.
 */
export async function measureResponsiveness<T>(url: string, work: () => Promise<T>): Promise<Responsiveness<T>> {
  const poll = async (): Promise<void> => {
    const response = await fetch(`${url}/healthz`);
    await response.text();
    if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
  };
  // The first request opens the connection; it is not part of the measurement.
  await poll();
  let running = true;
  let answers = 0;
  let maxGapMs = 0;
  const poller = (async () => {
    let last = performance.now();
    while (running) {
      await sleep(10);
      await poll();
      const now = performance.now();
      maxGapMs = Math.max(maxGapMs, now - last);
      last = now;
      answers += 1;
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    const durationMs = performance.now() - started;
    running = false;
    // The poll under way when the work ended still counts: a block at the very end shows in it.
    await poller;
    return { result, maxGapMs, answers, durationMs };
  } finally {
    running = false;
    await poller.catch(() => undefined);
  }
}
