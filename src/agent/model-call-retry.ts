import { setTimeout as delay } from 'node:timers/promises';
import { APICallError, RetryError, wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from 'ai';
import { ModelError, toModelError } from './model-errors.js';

// The provider-spec type, named through `ai`'s exports (the spec package is not a direct dependency).
type LanguageModelV3 = Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0]['model'];

export interface ModelCallRetryOptions {
  /** Retries of one model call after its first try; 0: none. */
  maxRetries: number;
  /** Longest single wait; a provider asking for longer fails the call with `retryAfterMs`, for the job's retry. */
  maxWaitMs?: number;
  /** Waits, or rejects once the signal aborts. */
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  /** Epoch milliseconds, for `retry-after` dates and Anthropic's reset times. */
  now?: () => number;
  /** In [0, 1): the backoff's jitter. */
  random?: () => number;
}

export const DEFAULT_MAX_WAIT_MS = 120_000;
const BACKOFF_BASE_MS = 1_000;
// 529 means the provider as a whole is overloaded, not this key: hammering it helps nobody.
const OVERLOADED_BACKOFF_BASE_MS = 5_000;

const defaultSleep = async (milliseconds: number, signal?: AbortSignal): Promise<void> => {
  await delay(milliseconds, undefined, signal === undefined ? {} : { signal });
};

/**
 * The model, with each failed model call (one step of the agent's loop) tried again by
 * itself, so a rate limit at step 5 does not redo steps 1–4 as a retry of the turn would.
 * Retried: 429, 5xx, 529, network errors, and the cut streams and stalls that
 * generate-by-streaming.ts reports. It waits what the provider asks (`retry-after-ms`,
 * `retry-after` in seconds or as a date, else Anthropic's `anthropic-ratelimit-*-reset`),
 * otherwise an exponential backoff with jitter. The SDK's own retry must be off
 * (`maxRetries: 0`): it ignores a `retry-after` of a minute or more. Only `doGenerate` is
 * retried (the agent's loop calls nothing else): a stream already handed on cannot be taken back.
 *
 * A model given by id (or an older spec) cannot be wrapped and is returned unchanged.
 */
export function withModelCallRetry(model: LanguageModelV3, options: ModelCallRetryOptions): LanguageModelV3;
export function withModelCallRetry(model: LanguageModel, options: ModelCallRetryOptions): LanguageModel;
export function withModelCallRetry(model: LanguageModel, options: ModelCallRetryOptions): LanguageModel {
  if (typeof model !== 'object' || model.specificationVersion !== 'v3') return model;
  const settings = {
    maxRetries: options.maxRetries,
    maxWaitMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    sleep: options.sleep ?? defaultSleep,
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
  };
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      wrapGenerate: async ({ doGenerate, params }) => {
        const errors: unknown[] = [];
        for (;;) {
          try {
            return await doGenerate();
          } catch (error) {
            const signal = params.abortSignal;
            if (signal?.aborted === true) throw error;
            const failure = failureOf(error);
            if (!failure?.retryable) throw error;
            errors.push(error);
            const asked = failure.headers === undefined ? undefined : askedWaitMs(failure.headers, settings.now());
            if (asked !== undefined && asked > settings.maxWaitMs) throw settled(waitTooLong(error, asked, settings.maxWaitMs));
            if (errors.length > settings.maxRetries) throw settled(givenUp(errors, asked));
            const backoff = backoffMs(errors.length, failure.status, settings.maxWaitMs, settings.random());
            await settings.sleep(asked ?? backoff, signal);
          }
        }
      },
    },
  });
}

interface Failure {
  retryable: boolean;
  status: number | undefined;
  headers: Record<string, string> | undefined;
}

/**
 * Failures a retry already gave up on. A model wrapped twice (a caller's wrapper inside the
 * agent's) must not wait and retry them again: the inner layer decided.
 */
const givenUpOn = new WeakSet<object>();

function settled(error: ModelError): ModelError {
  givenUpOn.add(error);
  return error;
}

/** What is known of a failed call; null: not for this layer to retry (ours, a bug, or given up on). */
function failureOf(error: unknown): Failure | null {
  if (typeof error === 'object' && error !== null && givenUpOn.has(error)) return null;
  if (APICallError.isInstance(error)) {
    return { retryable: error.isRetryable || error.statusCode === 529, status: error.statusCode, headers: error.responseHeaders };
  }
  if (error instanceof ModelError) return { retryable: error.retryable, status: error.providerStatus, headers: undefined };
  return null;
}

/** Waits n (1-based): base × 2^(n−1), capped, then between half and all of it so that parallel jobs spread out. */
function backoffMs(retry: number, status: number | undefined, maxWaitMs: number, random: number): number {
  const base = status === 529 ? OVERLOADED_BACKOFF_BASE_MS : BACKOFF_BASE_MS;
  return Math.round(Math.min(maxWaitMs, base * 2 ** (retry - 1)) * (0.5 + random / 2));
}

/**
 * The wait the provider asked for, in milliseconds, or undefined when it said nothing usable.
 * Anthropic's reset headers count when no retry-after is given: the latest reset of the
 * limits it reports as used up (all of them when it reports none), as its own SDK is asked to.
 */
export function askedWaitMs(headers: Record<string, string>, now: number): number | undefined {
  const header = (name: string): string | undefined => headers[name] ?? headers[name.toLowerCase()];
  const retryAfterMs = Number.parseFloat(header('retry-after-ms') ?? '');
  if (Number.isFinite(retryAfterMs) && retryAfterMs >= 0) return retryAfterMs;
  const retryAfter = header('retry-after')?.trim();
  if (retryAfter !== undefined && retryAfter !== '') {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number.parseFloat(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  const resets: Array<{ at: number; exhausted: boolean }> = [];
  for (const [name, value] of Object.entries(headers)) {
    const match = /^anthropic-ratelimit-(.+)-reset$/i.exec(name);
    if (match === null) continue;
    const at = Date.parse(value);
    if (!Number.isFinite(at)) continue;
    resets.push({ at, exhausted: header(`anthropic-ratelimit-${match[1]}-remaining`)?.trim() === '0' });
  }
  const exhausted = resets.filter((reset) => reset.exhausted);
  const relevant = exhausted.length > 0 ? exhausted : resets;
  if (relevant.length === 0) return undefined;
  return Math.max(0, Math.max(...relevant.map((reset) => reset.at)) - now);
}

const seconds = (milliseconds: number): string => `${Math.round(milliseconds / 100) / 10} s`;

/** The last failure as the job reports it, with the number of attempts when there were several. */
function reported(errors: unknown[]): ModelError {
  const last = errors.at(-1);
  if (last instanceof ModelError) return last;
  const wrapped = errors.length > 1 ? new RetryError({ message: `Failed after ${errors.length} attempts.`, reason: 'maxRetriesExceeded', errors }) : last;
  return toModelError(wrapped) ?? new ModelError('The model provider failed.', { retryable: true });
}

function withRetryAfter(error: ModelError, retryAfterMs: number | undefined, note = ''): ModelError {
  if (retryAfterMs === undefined && note === '') return error;
  return new ModelError(`${error.message}${note}`, {
    retryable: error.retryable,
    ...(error.providerStatus === undefined ? {} : { providerStatus: error.providerStatus }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

function waitTooLong(error: unknown, asked: number, maxWaitMs: number): ModelError {
  const base = reported([error]);
  return withRetryAfter(
    new ModelError(base.message, { retryable: true, ...(base.providerStatus === undefined ? {} : { providerStatus: base.providerStatus }) }),
    asked,
    ` The provider asked to wait ${seconds(asked)}, longer than one model call waits (${seconds(maxWaitMs)}); the turn is retried after that wait.`,
  );
}

function givenUp(errors: unknown[], asked: number | undefined): ModelError {
  const last = errors.at(-1);
  const base = reported(errors);
  // Our own errors (a cut stream, a stall) keep their wording; the count is added.
  const note = last instanceof ModelError && errors.length > 1 ? ` Gave up after ${errors.length} attempts.` : '';
  return withRetryAfter(base, asked, note);
}
