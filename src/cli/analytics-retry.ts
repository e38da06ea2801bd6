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
 * (so several clients that failed together do not come back together). The last error
 * is thrown once the retries are used up.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= options.retries || !isRetryableError(error) || options.signal?.aborted) throw error;
      const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
      const delayMs = Math.round(ceiling * (0.5 + random() / 2));
      options.onRetry?.(error, attempt + 1, delayMs);
      await sleep(delayMs, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}
