import type { ImportHit, SendHits, SendResult } from '../analytics/import/index.js';
import { isDocwrightError } from '../core/errors.js';
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
 * carries an id derived from its log line's text, so the server counts a hit it already
 * stored once.
 */
const WRITE_RETRIES: Omit<RetryOptions, 'signal'> = { retries: 5, baseDelayMs: 500, maxDelayMs: 10_000 };

/**
 * Delivers import batches to `POST /v1/analytics/{projectId}/events`. A batch the server
 * refuses as a whole never stops the import or vanishes: one over the body limit (413) is
 * split in halves and sent again, and one refused as invalid (another 400/413) counts all
 * its hits as rejected under the server's code, so the summary shows them. Errors that
 * every batch would meet (a bad key, an unknown project) stop the import.
 */
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
    send: deliver,
  };

  async function deliver(hits: ImportHit[]): Promise<SendResult> {
    try {
      return await sendOnce(hits);
    } catch (error) {
      if (!isDocwrightError(error) || (error.status !== 400 && error.status !== 413)) throw error;
      if (error.status === 413 && hits.length > 1) {
        const half = Math.ceil(hits.length / 2);
        return combine(await deliver(hits.slice(0, half)), await deliver(hits.slice(half)));
      }
      if (examples.length < maxExamples)
        examples.push({ id: hits[0]?.id ?? '', path: hits[0]?.path ?? '', code: error.code, message: `the whole batch of ${hits.length}: ${error.message}` });
      return { accepted: 0, rejected: hits.length, rejectedByCode: { [error.code]: hits.length } };
    }
  }

  async function sendOnce(hits: ImportHit[]): Promise<SendResult> {
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
    const rejectedByCode: Record<string, number> = {};
    for (const rejection of answer.rejected) {
      rejectedByCode[rejection.code] = (rejectedByCode[rejection.code] ?? 0) + 1;
      if (examples.length >= maxExamples) continue;
      const hit = hits[rejection.index];
      examples.push({ id: hit?.id ?? '', path: hit?.path ?? '', code: rejection.code, message: rejection.message });
    }
    return { accepted: answer.accepted, rejected: answer.rejected.length, rejectedByCode };
  }
}

function combine(first: SendResult, second: SendResult): SendResult {
  const rejectedByCode = { ...first.rejectedByCode };
  for (const [code, count] of Object.entries(second.rejectedByCode ?? {})) rejectedByCode[code] = (rejectedByCode[code] ?? 0) + count;
  return { accepted: first.accepted + second.accepted, rejected: first.rejected + second.rejected, rejectedByCode };
}
