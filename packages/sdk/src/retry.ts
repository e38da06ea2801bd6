import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** The longest Retry-After honoured, in seconds (default 30): a longer one is not waited for, the 429 is returned. */
  maxDelaySeconds?: number;
  /** How a wait is made (tests pass a fake). */
  sleep?: (milliseconds: number, signal: AbortSignal | undefined) => Promise<void>;
}

type Fetch = (request: Request) => Promise<Response>;

/**
 * fetch that sends a request again when the server answers 429, or 503 with Retry-After,
 * after the Retry-After it gave (1 s if it gave none on a 429). Safe for every operation:
 * Docwright answers those before doing any work (a rate-limited create created nothing; a
 * 503 database_unavailable committed nothing). Bounded by `maxRetries` and
 * `maxDelaySeconds`; an aborted request stops waiting.
 */
export function retryingFetch(base: Fetch, options: RetryOptions = {}): Fetch {
  const maxRetries = options.maxRetries ?? 2;
  const maxDelaySeconds = options.maxDelaySeconds ?? 30;
  const sleep = options.sleep ?? abortableSleep;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      // A body can be read once: every attempt but the last sends a copy.
      const response = await base(attempt < maxRetries ? request.clone() : request);
      const delay = retryDelaySeconds(response);
      if (attempt >= maxRetries || delay === undefined || delay > maxDelaySeconds || request.signal.aborted) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay * 1000, request.signal);
      request.signal.throwIfAborted();
    }
  };
}

function retryDelaySeconds(response: Response): number | undefined {
  const header = retryAfterSeconds(response.headers.get('retry-after'));
  if (response.status === 429) return header ?? 1;
  if (response.status === 503) return header;
  return undefined;
}

/** Waits, or less when the signal aborts (then resolves, never rejects). */
export function abortableSleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, milliseconds);
    signal?.addEventListener('abort', done, { once: true });
  });
}
