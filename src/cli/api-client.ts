import { DocwrightError } from '../core/errors.js';
import { loadClientConfig, type ClientConfig } from '../config/load-config.js';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * The client commands' only way to the server: JSON over HTTP with the API key from
 * DOCWRIGHT_API_KEY. A problem body from the server becomes a DocwrightError carrying
 * the server's code, message and field errors, so the CLI prints what the API said.
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
    if (!this.config.apiKey) {
      throw new DocwrightError('missing_api_key', 'Set DOCWRIGHT_API_KEY to an API key (create one with: docwright keys create --project ID).');
    }
    return { authorization: `Bearer ${this.config.apiKey}`, accept: 'application/json', ...extra };
  }

  // T is the caller's word for what its own server answers on that route (no runtime check).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- a typed answer per call reads better than a cast at each of them
  async request<T>(path: string, options: RequestOptions = {}): Promise<{ status: number; body: T; headers: Headers }> {
    const headers = this.headers(options.headers);
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.url(path, options.query), {
        method: options.method ?? 'GET',
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
      });
    } catch (error) {
      throw new DocwrightError(
        'server_unreachable',
        `Cannot reach the Docwright server at ${this.config.url} (set DOCWRIGHT_URL): ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    if (!response.ok) {
      const problem = (typeof body === 'object' && body !== null ? body : {}) as {
        code?: string;
        detail?: string;
        errors?: Array<{ path: string; message: string }>;
      };
      throw new DocwrightError(problem.code ?? 'http_error', problem.detail ?? `The server answered ${response.status}.`, {
        status: response.status,
        errors: problem.errors,
      });
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }
}
