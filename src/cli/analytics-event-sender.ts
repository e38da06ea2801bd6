import type { ImportHit, SendHits } from '../analytics/import/index.js';
import type { ApiClient } from './api-client.js';
import { parseEventsAccepted } from './analytics-api-types.js';
import { withRetries, type RetryOptions } from './analytics-retry.js';

export interface RejectedHitExample {
  id: string;
  path: string;
  code: string;
  message: string;
}

export interface EventSender {
  /** The `send` of importLogs. */
  send: SendHits;
  /** The first rejections, to show why hits were refused. */
  readonly rejectedExamples: readonly RejectedHitExample[];
  /** Requests that were tried again after a transient failure. */
  readonly retries: number;
}

export interface EventSenderOptions {
  signal?: AbortSignal;
  retry?: Partial<RetryOptions>;
  maxRejectedExamples?: number;
  /** A request that has not answered by then counts as a network failure and is retried. */
  requestTimeoutMs?: number;
}

/**
 * Six tries over about half a minute. Retrying a batch is safe: every imported hit
 * carries an id derived from its file and line, so the server counts a hit it already
 * stored once.
 */
const WRITE_RETRIES: Omit<RetryOptions, 'signal'> = { retries: 5, baseDelayMs: 500, maxDelayMs: 10_000 };

/** Delivers import batches to `POST /v1/analytics/{projectId}/events`. */
export function createEventSender(client: ApiClient, projectId: string, options: EventSenderOptions = {}): EventSender {
  const path = `/v1/analytics/${encodeURIComponent(projectId)}/events`;
  const maxExamples = options.maxRejectedExamples ?? 10;
  const examples: RejectedHitExample[] = [];
  let retries = 0;
  const post = (hits: ImportHit[]) => {
    const timeout = AbortSignal.timeout(options.requestTimeoutMs ?? 120_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    return client.request<unknown>(path, { method: 'POST', body: { events: hits }, signal });
  };
  return {
    get rejectedExamples() {
      return examples;
    },
    get retries() {
      return retries;
    },
    async send(hits) {
      const response = await withRetries(() => post(hits), {
        ...WRITE_RETRIES,
        ...options.retry,
        signal: options.signal,
        onRetry: (error, attempt, delayMs) => {
          retries++;
          options.retry?.onRetry?.(error, attempt, delayMs);
        },
      });
      const answer = parseEventsAccepted(response.body, hits.length);
      for (const rejection of answer.rejected) {
        if (examples.length >= maxExamples) break;
        const hit = hits[rejection.index];
        examples.push({ id: hit?.id ?? '', path: hit?.path ?? '', code: rejection.code, message: rejection.message });
      }
      return { accepted: answer.accepted, rejected: answer.rejected.length };
    },
  };
}
