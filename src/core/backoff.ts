export interface BackoffOptions {
  /** The first delay's upper bound, in milliseconds. */
  baseMs: number;
  /** No delay is longer than this. */
  capMs: number;
  /** Random source in [0, 1); injected by tests. */
  random?: () => number;
}

/**
 * The delay before retry `attempt` (1-based): exponential, capped, with "equal jitter" —
 * half the step is fixed, half is random. Processes that lost the same server at the same
 * moment therefore spread out instead of reconnecting in lock step, and no retry comes
 * sooner than half its step (full jitter would allow a tight loop of near-zero waits).
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions): number {
  const step = Math.min(options.capMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(step / 2 + random() * (step / 2));
}
