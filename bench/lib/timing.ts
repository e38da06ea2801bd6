import { summarize, type SampleSummary } from './percentiles.js';

export interface RepeatOptions {
  /** Runs thrown away first: JIT, page cache and query plans settle in them. */
  warmup?: number;
  iterations: number;
}

export interface RepeatedTiming<T> {
  /** Milliseconds per measured run. */
  samples: number[];
  summary: SampleSummary;
  /** What the last run returned, so callers can check the answer they timed. */
  lastResult: T;
}

/** Milliseconds taken by one run of `run`. */
export async function timeOnce<T>(run: () => Promise<T> | T): Promise<{ milliseconds: number; result: T }> {
  const startedAt = performance.now();
  const result = await run();
  return { milliseconds: performance.now() - startedAt, result };
}

/** Runs `run` sequentially `warmup + iterations` times and summarizes the measured ones. */
export async function timeRepeated<T>(run: () => Promise<T> | T, options: RepeatOptions): Promise<RepeatedTiming<T>> {
  if (!(Number.isInteger(options.iterations) && options.iterations >= 1)) throw new Error('iterations must be a positive integer');
  for (let index = 0; index < (options.warmup ?? 0); index++) await run();
  const samples: number[] = [];
  let lastResult: T | undefined;
  for (let index = 0; index < options.iterations; index++) {
    const timed = await timeOnce(run);
    samples.push(timed.milliseconds);
    lastResult = timed.result;
  }
  return { samples, summary: summarize(samples), lastResult: lastResult as T };
}
