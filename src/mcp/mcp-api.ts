import { DocwrightError } from '../core/errors.js';

/** One request to Docwright's HTTP API, relative to its base: `/v2/agent/…`, `/v1/analytics/…`. */
export interface ApiCall {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/**
 * The one narrow interface the MCP tools stand on: Docwright's public HTTP API, with the
 * caller's admin key already attached. Two transports implement it: `docwright mcp`
 * (stdio) sends real HTTP to DOCWRIGHT_URL like the other client commands, and `/mcp`
 * dispatches in-process with Fastify's inject, so both go through the same auth hook,
 * project scope, validation, rate limit and state rules as any API client. Answers the
 * parsed body of a 2xx; throws a DocwrightError (the problem's code, detail and field
 * errors) otherwise.
 */
export type DocwrightApi = (call: ApiCall) => Promise<unknown>;

/** A problem body (RFC 9457, decisions.md "Errors") as the DocwrightError it stands for. */
export function problemError(status: number, body: unknown): DocwrightError {
  const problem = (typeof body === 'object' && body !== null ? body : {}) as {
    code?: unknown;
    detail?: unknown;
    errors?: Array<{ path: string; message: string }>;
  };
  return new DocwrightError(
    typeof problem.code === 'string' ? problem.code : 'http_error',
    typeof problem.detail === 'string' ? problem.detail : `The server answered ${status}.`,
    { status, ...(Array.isArray(problem.errors) ? { errors: problem.errors } : {}) },
  );
}
