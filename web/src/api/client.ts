import { ApiError } from './api-error';
import type { Problem } from './types';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

let csrfToken = '';
let unauthorizedHandler: (() => void) | null = null;
let csrfRefresher: (() => Promise<void>) | null = null;

/** The token GET /v1/session returned; sent as X-CSRF-Token on every state-changing call. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called on a 401 from any call that did not opt out (the session expired: go sign in). */
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler;
}

/**
 * Fetches a fresh CSRF token (GET /v1/session). Called once when a write is refused with
 * csrf_failed: the browser's dw_csrf cookie changed under the page (cleared, or the session
 * ended and a new token was issued), so the token in memory no longer matches.
 */
export function onCsrfRefresh(refresh: () => Promise<void>): void {
  csrfRefresher = refresh;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sign-in answers 401 for a wrong password: that is a message, not an expired session. */
  ignoreUnauthorized?: boolean;
  headers?: Record<string, string>;
}

async function readProblem(response: Response): Promise<Problem> {
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return (await response.json()) as Problem;
    } catch {
      // A truncated body still deserves the status-based message below.
    }
  }
  return { status: response.status, detail: `The server answered ${response.status} ${response.statusText}.`.replace(' .', '.') };
}

/** One JSON call to the Docwright API on this origin; throws ApiError on any failure. */
export async function request<T>(method: Method, path: string, body?: unknown, options: RequestOptions = {}, retried = false): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, { code: 'network_error', detail: 'Could not reach the Docwright server. Check your connection and try again.' });
  }
  if (!response.ok) {
    const problem = await readProblem(response);
    if (response.status === 403 && problem.code === 'csrf_failed' && method !== 'GET' && csrfRefresher && !retried) {
      await csrfRefresher();
      return request<T>(method, path, body, options, true);
    }
    if (response.status === 401 && !options.ignoreUnauthorized) unauthorizedHandler?.();
    throw new ApiError(response.status, problem);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body ?? {}, options),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) => request<T>('PATCH', path, body, options),
  delete: <T = void>(path: string, body?: unknown, options?: RequestOptions) => request<T>('DELETE', path, body, options),
};

/** Builds a query string from the defined values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

export const enc = encodeURIComponent;
