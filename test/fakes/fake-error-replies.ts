import type { FakeModelScript, FakeProtocol, FakeStatusReply } from './fake-model-types.js';

/**
 * Error answers as the providers send them: the body each API documents for a status (Anthropic's
 * `{type: 'error', error: {type, message}}` with its error types, OpenAI's `{error: {message,
 * type, param, code}}`), and helpers for the failures retry logic must handle.
 */

const ANTHROPIC_ERRORS: Record<number, [type: string, message: (model: string) => string]> = {
  400: ['invalid_request_error', () => 'Invalid request.'],
  401: ['authentication_error', () => 'invalid x-api-key'],
  402: ['billing_error', () => 'Your credit balance is too low to access the Anthropic API.'],
  403: ['permission_error', () => 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', (model) => `model: ${model}`],
  413: ['request_too_large', () => 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', () => 'Number of request tokens has exceeded your per-minute rate limit.'],
  500: ['api_error', () => 'Internal server error'],
  504: ['timeout_error', () => 'Request timed out'],
  529: ['overloaded_error', () => 'Overloaded'],
};

const OPENAI_ERRORS: Record<number, [type: string, code: string | null, message: (model: string) => string]> = {
  400: ['invalid_request_error', null, () => 'Invalid request.'],
  401: ['invalid_request_error', 'invalid_api_key', () => 'Incorrect API key provided.'],
  403: ['invalid_request_error', 'unsupported_country_region_territory', () => 'Country, region, or territory not supported.'],
  404: ['invalid_request_error', 'model_not_found', (model) => `The model \`${model}\` does not exist or you do not have access to it.`],
  429: ['requests', 'rate_limit_exceeded', () => 'Rate limit reached for requests. Please try again later.'],
  500: ['server_error', null, () => 'The server had an error while processing your request.'],
  503: ['server_error', null, () => 'The engine is currently overloaded, please try again later.'],
};

export function defaultErrorBody(protocol: FakeProtocol, status: number, model = ''): object {
  if (protocol === 'anthropic-messages') {
    const [type, message] = ANTHROPIC_ERRORS[status] ?? (status >= 500 ? ANTHROPIC_ERRORS[500]! : ANTHROPIC_ERRORS[400]!);
    return { type: 'error', error: { type, message: message(model) } };
  }
  const [type, code, message] = OPENAI_ERRORS[status] ?? (status >= 500 ? OPENAI_ERRORS[500]! : OPENAI_ERRORS[400]!);
  return { error: { message: message(model), type, param: null, code } };
}

/** Where a rate-limited answer says when to come back. */
export type RetryAfterHeader = 'retry-after' | 'retry-after-ms' | 'anthropic-ratelimit-requests-reset';

export interface RateLimitOptions {
  /** The headers that carry the wait; default `['retry-after']`. */
  via?: RetryAfterHeader[];
  body?: object;
  headers?: Record<string, string>;
  /** Clock for `anthropic-ratelimit-requests-reset` (an RFC 3339 time); default `Date.now`. */
  now?: () => number;
}

/**
 * A status reply that is also a whole script answering it to every request, so both
 * `replySequence(rateLimited(30), {text: 'ok'})` and `script: overloaded()` work. Its headers
 * are computed when the answer is sent, so a reset time is counted from then.
 */
function replyAndScript(make: () => FakeStatusReply): FakeStatusReply & FakeModelScript {
  const script: FakeModelScript = () => make();
  const fields: PropertyDescriptorMap = {};
  for (const key of Object.keys(make())) fields[key] = { enumerable: true, get: () => make()[key as keyof FakeStatusReply] };
  return Object.defineProperties(script, fields) as FakeStatusReply & FakeModelScript;
}

/** 429 with the wait in `retry-after` seconds (or the other headers `via` names). */
export function rateLimited(retryAfterSeconds: number, options: RateLimitOptions = {}): FakeStatusReply & FakeModelScript {
  const via = options.via ?? ['retry-after'];
  const now = options.now ?? Date.now;
  return replyAndScript(() => {
    const headers: Record<string, string> = {};
    if (via.includes('retry-after')) headers['retry-after'] = String(retryAfterSeconds);
    if (via.includes('retry-after-ms')) headers['retry-after-ms'] = String(Math.round(retryAfterSeconds * 1000));
    if (via.includes('anthropic-ratelimit-requests-reset')) {
      headers['anthropic-ratelimit-requests-limit'] = '50';
      headers['anthropic-ratelimit-requests-remaining'] = '0';
      headers['anthropic-ratelimit-requests-reset'] = new Date(now() + retryAfterSeconds * 1000).toISOString();
    }
    return { status: 429, headers: { ...headers, ...options.headers }, ...(options.body === undefined ? {} : { body: options.body }) };
  });
}

/** 529, Anthropic's "overloaded" (its body is `overloaded_error`). */
export function overloaded(extra: { body?: object; headers?: Record<string, string> } = {}): FakeStatusReply & FakeModelScript {
  return replyAndScript(() => ({ status: 529, ...extra }));
}
