import { AISDKError, APICallError, RetryError } from 'ai';
import { DocwrightError } from '../core/errors.js';
import { DEFAULT_MODEL } from '../config/default-model.js';
import { modelUnavailable } from './model-unavailable.js';

/**
 * A failure of the model provider. `retryable` tells the job queue whether running the
 * turn again later can help (server errors, rate limits, network) or not (bad key,
 * rejected request).
 */
export class ModelError extends DocwrightError {
  readonly retryable: boolean;
  /** The provider's HTTP status, when it answered at all. */
  readonly providerStatus: number | undefined;
  /** How long the provider asked to wait before the next try (retry-after and the like); the job's retry waits at least this. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { retryable: boolean; providerStatus?: number; retryAfterMs?: number; code?: 'model_error' | 'model_unavailable' }) {
    // 502: Docwright worked, its upstream did not.
    super(options.code ?? 'model_error', message, { status: 502 });
    this.retryable = options.retryable;
    this.providerStatus = options.providerStatus;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Whether a failed run may succeed when retried later. Any DocwrightError may carry the marker. */
export function isRetryable(error: unknown): boolean {
  return error instanceof DocwrightError && (error as { retryable?: unknown }).retryable === true;
}

const MAX_DETAIL_LENGTH = 300;

// Provider messages sometimes echo part of the key ("Incorrect API key provided: sk-…")
// or carry a bearer token; mask anything shaped like one before it reaches a job record.
const SECRET_PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_*-]{6,}/g,
  /\bBearer\s+[^\s"']+/gi,
  /\b(api[_-]?key|key|token|secret|password)=([^\s&"']+)/gi,
  /\b[A-Za-z0-9_-]{32,}\b/g,
];

export function redactSecrets(text: string): string {
  let result = text;
  for (const pattern of SECRET_PATTERNS) {
    result = result.replace(pattern, (match, name: unknown) => (typeof name === 'string' && match.includes('=') ? `${name}=[redacted]` : '[redacted]'));
  }
  return result;
}

function shortDetail(text: string): string {
  const clean = redactSecrets(text.replace(/\s+/g, ' ').trim());
  return clean.length > MAX_DETAIL_LENGTH ? `${clean.slice(0, MAX_DETAIL_LENGTH)}…` : clean;
}

function fromApiCallError(error: APICallError, attempts: number): ModelError {
  const status = error.statusCode;
  const after = attempts > 1 ? ` after ${attempts} attempts` : '';
  if (status === 401 || status === 403) {
    // The provider's own text is left out on purpose: it may quote the key.
    return new ModelError(`The model provider rejected the credentials (HTTP ${status}); check the API key configured for this model.`, {
      retryable: false,
      providerStatus: status,
    });
  }
  const unavailable = modelUnavailable(error);
  if (unavailable !== null && status !== undefined) {
    return new ModelError(
      `The model provider does not serve model "${shortDetail(unavailable.model)}" (HTTP ${status}: ${shortDetail(unavailable.detail)}): it is retired, misspelt or not open to this API key. ` +
        `Set DOCWRIGHT_MODEL (or the project's or the job's model) to a current model, for example ${DEFAULT_MODEL}.`,
      { retryable: false, code: 'model_unavailable', providerStatus: status },
    );
  }
  if (status === undefined) {
    return new ModelError(`Could not reach the model provider${after}: ${shortDetail(error.message)}`, {
      retryable: error.isRetryable,
    });
  }
  return new ModelError(`The model provider answered HTTP ${status}${after}: ${shortDetail(error.message)}`, {
    retryable: error.isRetryable,
    providerStatus: status,
  });
}

/**
 * Maps an error thrown by the AI SDK to a ModelError, or returns null when the error did
 * not come from the model side (a bug, or an error raised by our own callbacks).
 */
export function toModelError(error: unknown): ModelError | null {
  if (RetryError.isInstance(error)) {
    const last = error.lastError;
    if (APICallError.isInstance(last)) return fromApiCallError(last, error.errors.length);
    return new ModelError(`The model provider failed after ${error.errors.length} attempts: ${shortDetail(error.message)}`, {
      retryable: error.reason === 'maxRetriesExceeded',
    });
  }
  if (APICallError.isInstance(error)) return fromApiCallError(error, 1);
  if (AISDKError.isInstance(error)) {
    // Malformed or unusable responses: retrying the same request rarely changes them.
    return new ModelError(`The model's response could not be used: ${shortDetail(error.message)}`, { retryable: false });
  }
  return null;
}
