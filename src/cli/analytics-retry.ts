import pRetry from 'p-retry';
import { backoffDelayMs } from '../core/backoff.js';
import { isDocwrightError } from '../core/errors.js';
import { abortableSleep } from '../../packages/sdk/src/index.js';

export interface RetryOptions {
  /** Tries after the first one. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Stops retrying (and waiting) once aborted. */
  signal?: AbortSignal;
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Failures worth another try: the server could not be reached or the connection broke
 * (`server_unreachable`), it asked the caller to slow down (429), or it failed on its
 * side (5xx). Anything else — a bad key, invalid input — fails the same way every time.
 */
export function isRetryableError(error: unknown): boolean {
  if (!isDocwrightError(error)) return false;
  if (error.code === 'server_unreachable') return true;
  return error.status === 429 || (error.status >= 500 && error.status <= 599 && error.code !== 'missing_api_key');
}

/**
 * Runs `operation`, retrying retryable failures with exponential backoff and jitter
 * (core/backoff.ts's "equal jitter", so several clients that failed together do not come
 * back together). The last error is thrown once the retries are used up or the signal
 * aborts.
 *
 * p-retry runs the attempts; the wait is made in its onFailedAttempt hook (the pattern its
 * README shows) rather than by its own timer, because p-retry 7 — the last major that runs
 * on Node 20 — does not tell the hook how long it will wait, and the CLI prints that delay.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? abortableSleep;
  const backoff = { baseMs: options.baseDelayMs, capMs: options.maxDelayMs, random: options.random ?? Math.random };
  const worthRetrying = (error: unknown): boolean => isRetryableError(error) && options.signal?.aborted !== true;
  return pRetry((attemptNumber) => operation(attemptNumber - 1), {
    retries: options.retries,
    minTimeout: 0,
    shouldRetry: ({ error }) => worthRetrying(error),
    onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
      if (retriesLeft === 0 || !worthRetrying(error)) return;
      const delayMs = backoffDelayMs(attemptNumber, backoff);
      options.onRetry?.(error, attemptNumber, delayMs);
      await sleep(delayMs, options.signal);
    },
  });
}
