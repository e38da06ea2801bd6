import type { Clock } from '../core/clock.js';
import { DocwrightError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { lockKey, type Executor } from '../db/transaction.js';

export interface RateLimitState {
  policy: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (0 when none is counted). */
  resetSeconds: number;
}

/** The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) for a state. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"${state.policy}";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"${state.policy}";r=${state.remaining};t=${state.resetSeconds}`,
  };
}

/**
 * An exact sliding-window limit kept in the database, so it holds across every process
 * sharing the store. A request is counted only inside the caller's transaction, together
 * with the work it allows: a request that fails afterwards rolls its charge back.
 */
export class SlidingWindowLimiter {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly policy: string,
    private readonly windowMs = 3_600_000,
  ) {}

  private async state(executor: Executor, projectId: string, limit: number, now: number): Promise<{ state: RateLimitState; count: number }> {
    const since = now - this.windowMs;
    const rows = await executor
      .selectFrom('rate_limit_hits')
      .select('at')
      .where('project_id', '=', projectId)
      .where('bucket', '=', this.policy)
      .where('at', '>', since)
      .orderBy('at', 'asc')
      .execute();
    const count = rows.length;
    // Room frees up when enough of the oldest hits have left the window to drop below the limit.
    const freeing = rows[Math.max(0, count - limit)];
    const resetSeconds = freeing ? Math.max(1, Math.ceil((freeing.at + this.windowMs - now) / 1000)) : 0;
    return {
      count,
      state: { policy: this.policy, limit, windowSeconds: Math.round(this.windowMs / 1000), remaining: Math.max(0, limit - count), resetSeconds },
    };
  }

  /** Read-only view, for the headers of responses that did not spend anything. */
  async peek(projectId: string, limit: number): Promise<RateLimitState> {
    return (await this.state(this.database.db, projectId, limit, this.clock.now())).state;
  }

  /**
   * Counts one request, inside `executor`'s write transaction, or throws `rate_limited`
   * (429 with Retry-After and the RateLimit headers) without counting it.
   */
  async consume(executor: Executor, projectId: string, limit: number): Promise<RateLimitState> {
    await lockKey(this.database, executor, `rate:${this.policy}:${projectId}`);
    const now = this.clock.now();
    await executor
      .deleteFrom('rate_limit_hits')
      .where('project_id', '=', projectId)
      .where('bucket', '=', this.policy)
      .where('at', '<=', now - this.windowMs)
      .execute();
    const { state, count } = await this.state(executor, projectId, limit, now);
    if (count >= limit) {
      throw new DocwrightError(
        'rate_limited',
        `This project may create jobs and send messages ${limit} times per hour; try again in ${state.resetSeconds} seconds.`,
        { status: 429, headers: { ...rateLimitHeaders(state), 'Retry-After': String(state.resetSeconds) } },
      );
    }
    await executor.insertInto('rate_limit_hits').values({ project_id: projectId, bucket: this.policy, at: now }).execute();
    const after = { ...state, remaining: state.remaining - 1 };
    if (count === 0) after.resetSeconds = Math.round(this.windowMs / 1000);
    return after;
  }
}
