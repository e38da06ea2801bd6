import { DocwrightError } from '../core/errors.js';
import { loadClientConfig, type ClientConfig } from '../config/load-config.js';
import { createDocwrightClient, docwrightFetch, DocwrightApiError, DocwrightNetworkError, type DocwrightClient } from '../../packages/sdk/src/index.js';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * The client commands' way to the server: the SDK (packages/sdk) with the URL and API key
 * of DOCWRIGHT_URL and DOCWRIGHT_API_KEY. The SDK's errors become DocwrightErrors carrying
 * the server's code, message, field errors and response headers (cliError), so the CLI
 * prints what the API said.
 */
export class ApiClient {
  constructor(private readonly config: ClientConfig = loadClientConfig()) {}

  get baseUrl(): string {
    return this.config.url;
  }

  url(path: string, query: RequestOptions['query'] = {}): string {
    const url = new URL(path, this.config.url + '/');
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.apiKey()}`, accept: 'application/json', ...extra };
  }

  /**
   * The SDK's typed client. `retry: false` for the callers that have their own answer to a
   * 429 (the analytics walks back off; a follow falls back to polling); otherwise the
   * SDK's bounded retries that honour Retry-After.
   */
  sdk(options: { retry?: false } = {}): DocwrightClient {
    return createDocwrightClient({ baseUrl: this.config.url, apiKey: this.apiKey(), ...options });
  }

  /** Runs an SDK call, its errors made the CLI's. */
  async call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw cliError(error, this.config.url);
    }
  }

  // T is the caller's word for what its own server answers on that route (no runtime check).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- a typed answer per call reads better than a cast at each of them
  async request<T>(path: string, options: RequestOptions = {}): Promise<{ status: number; body: T; headers: Headers }> {
    const headers = this.headers(options.headers);
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const send = docwrightFetch({ baseUrl: this.config.url, retry: false });
    const request = new Request(this.url(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
    const response = await this.call(() => send(request));
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }

  private apiKey(): string {
    if (!this.config.apiKey) {
      throw new DocwrightError('missing_api_key', 'Set DOCWRIGHT_API_KEY to an API key (create one with: docwright keys create --project ID).');
    }
    return this.config.apiKey;
  }
}

/**
 * An SDK error as the CLI reports it: the problem's code and detail, its field errors, and
 * the answer's headers; a 429 says when to retry.
 */
export function cliError(error: unknown, baseUrl: string): unknown {
  if (error instanceof DocwrightApiError) {
    let message = error.problem?.detail ?? `The server answered ${error.status}.`;
    const retryAfter = error.status === 429 ? error.retryAfterSeconds : undefined;
    if (retryAfter !== undefined) message += ` Retry after ${retryAfter} s (at ${new Date(Date.now() + retryAfter * 1000).toISOString()}).`;
    return new DocwrightError(error.problem?.code ?? 'http_error', message, {
      status: error.status,
      errors: error.problem?.errors,
      headers: Object.fromEntries(error.headers),
      cause: error,
    });
  }
  if (error instanceof DocwrightNetworkError) {
    return new DocwrightError('server_unreachable', `Cannot reach the Docwright server at ${baseUrl} (set DOCWRIGHT_URL): ${error.reason}`, { cause: error });
  }
  return error;
}
