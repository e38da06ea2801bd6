import type { components } from './schema.js';

/** An RFC 9457 problem body, as every Docwright error answer carries (application/problem+json). */
export type Problem = components['schemas']['Problem'];

/**
 * The server answered with an error status. `problem` is its problem body (undefined if the
 * answer was not one, e.g. from a proxy), `headers` the answer's headers (Retry-After,
 * RateLimit, X-Request-Id …).
 */
export class DocwrightApiError extends Error {
  override readonly name = 'DocwrightApiError';
  readonly status: number;
  readonly problem: Problem | undefined;
  readonly headers: Headers;

  constructor(response: Response, problem: Problem | undefined) {
    super(problem?.detail ?? `The server answered ${response.status} ${response.statusText}`.trim());
    this.status = response.status;
    this.problem = problem;
    this.headers = response.headers;
  }

  /** The stable machine code (`rate_limited`, `not_found`, `validation_failed` …), or `http_<status>`. */
  get code(): string {
    return this.problem?.code ?? `http_${this.status}`;
  }

  /** Seconds the server asked to wait (Retry-After), if it said. */
  get retryAfterSeconds(): number | undefined {
    return retryAfterSeconds(this.headers.get('retry-after'));
  }

  /** The request id to quote when reporting the problem. */
  get requestId(): string | undefined {
    return this.problem?.requestId ?? this.headers.get('x-request-id') ?? undefined;
  }
}

/** The server could not be reached (refused, reset, DNS, TLS …); `cause` says why. */
export class DocwrightNetworkError extends Error {
  override readonly name = 'DocwrightNetworkError';
  /** Why, in a few words (ECONNREFUSED 127.0.0.1:3000 …). */
  readonly reason: string;

  constructor(
    readonly baseUrl: string,
    cause: unknown,
  ) {
    super(`Cannot reach the Docwright server at ${baseUrl}: ${networkReason(cause)}`, { cause });
    this.reason = networkReason(cause);
  }
}

/** fetch reports every network failure as "fetch failed"; its cause says which (ECONNREFUSED …). */
function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  return cause instanceof Error && cause.message !== '' ? cause.message : error.message;
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error of an answer that is not 2xx, with its problem body if it has one. */
export async function errorFromResponse(response: Response): Promise<DocwrightApiError> {
  const text = await response.text().catch(() => '');
  let problem: Problem | undefined;
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && 'code' in body && 'status' in body) problem = body as Problem;
  } catch {
    problem = undefined;
  }
  return new DocwrightApiError(response, problem);
}
