import type { Problem } from './types';

/** A failed API call, carrying the problem body's code and detail so pages can show both. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Problem;

  constructor(status: number, problem: Problem) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.code = problem.code ?? (status === 0 ? 'network_error' : `http_${status}`);
    this.problem = problem;
  }

  /** Field errors of a 400, by path ("settings.model"), for inline form messages. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const error of this.problem.errors ?? []) out[error.path] ??= error.message;
    return out;
  }
}

/** Anything thrown turned into an ApiError, so error views have one shape to render. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(0, { code: 'client_error', detail: message });
}
