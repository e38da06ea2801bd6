import createClient, { type Client } from 'openapi-fetch';
import { DocwrightNetworkError, errorFromResponse } from './errors.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import type { paths } from './schema.js';

export interface DocwrightClientOptions {
  /** Where the server listens, e.g. http://127.0.0.1:3000 (DOCWRIGHT_PUBLIC_URL). */
  baseUrl: string;
  /** An API key (dw_admin_… or dw_ingest_…), sent as a Bearer token. */
  apiKey?: string;
  /** Retries of 429 (and 503 with Retry-After), honouring Retry-After; `false` turns them off. */
  retry?: RetryOptions | false;
  /** Another fetch (a proxy agent, a test double); globalThis.fetch by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers for every request (e.g. User-Agent). */
  headers?: Record<string, string>;
}

export type DocwrightClient = Client<paths>;

/**
 * A typed client of every operation of the Docwright API (openapi-fetch over the generated
 * `paths`). Error answers throw DocwrightApiError (status, problem body, headers); network
 * failures throw DocwrightNetworkError; so a resolved call always holds the success body:
 * `const job = await ok(client.POST('/v2/agent/{projectId}/job', { params: { path: { projectId } }, body: { prompt } }))`.
 */
export function createDocwrightClient(options: DocwrightClientOptions): DocwrightClient {
  return createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: docwrightFetch(options) });
}

/**
 * The fetch under createDocwrightClient, for requests the typed client does not make (a
 * path built elsewhere): adds the key and the headers, retries, and throws
 * DocwrightApiError for an error answer and DocwrightNetworkError when unreachable.
 */
export function docwrightFetch(options: DocwrightClientOptions): (request: Request) => Promise<Response> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retrying = options.retry === false ? base : retryingFetch(base, options.retry);
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    ...options.headers,
  };
  return async (request) => {
    for (const [name, value] of Object.entries(headers)) if (!request.headers.has(name) || name === 'authorization') request.headers.set(name, value);
    let response: Response;
    try {
      response = await retrying(request);
    } catch (error) {
      if (request.signal.aborted) throw error;
      throw new DocwrightNetworkError(baseUrl, error);
    }
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  };
}

/**
 * The success body of an openapi-fetch call made with createDocwrightClient (whose errors
 * throw); `undefined` for an answer without a body (204).
 */
export async function ok<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data } = await call;
  return data as T;
}
