import { sql } from 'kysely';
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

interface Hit {
  seq: number;
  at: number;
}

interface NewestHit extends Hit {
  /** The limit in force when it was accepted: no stored hit lies further back than this. */
  kept: number;
}

/** What the index seeks tell about a project's window. */
interface WindowView {
  /** The newest accepted hit (undefined before the first). */
  newest: NewestHit | undefined;
  /** The oldest accepted hit still inside the window (undefined when none is). */
  oldestInWindow: Hit | undefined;
}

/**
 * The newest hit of a (project, bucket) and the oldest one after `since`: one statement,
 * two index seeks (the primary key from its end, the `at` index from `since`), so its cost
 * is the same with 10 or 100,000 hits in the window. Exported for the plan test.
 */
export function windowViewQuery(executor: Executor, projectId: string, bucket: string, since: number) {
  const hits = executor.selectFrom('rate_limit_hits').select(['seq', 'at', 'kept']).where('project_id', '=', projectId).where('bucket', '=', bucket);
  const newest = hits
    .select(sql<string>`'newest'`.as('which'))
    .orderBy('seq', 'desc')
    .limit(1);
  const oldest = hits
    .select(sql<string>`'oldest'`.as('which'))
    .where('at', '>', since)
    .orderBy('at', 'asc')
    .orderBy('seq', 'asc')
    .limit(1);
  return executor
    .selectFrom(newest.as('newest'))
    .selectAll()
    .unionAll(executor.selectFrom(oldest.as('oldest')).selectAll());
}

const countOf = (view: WindowView): number => (view.oldestInWindow && view.newest ? view.newest.seq - view.oldestInWindow.seq + 1 : 0);

/**
 * An exact sliding-window limit kept in the database, so it holds across every process
 * sharing the store. A request is counted only inside the caller's transaction, together
 * with the work it allows: a request that fails afterwards rolls its charge back.
 *
 * The cost does not grow with the hits in the window. Accepted hits are numbered per
 * project (`seq`) and stored with times that never go backwards, so the hits inside the
 * window are exactly the seqs from the oldest one still inside to the newest: two index
 * seeks give the count, and the time the oldest leaves gives `t`. Only the last `limit`
 * hits are kept: when a hit is accepted, fewer than `limit` hits are inside the window,
 * so the one `limit` places back (and every older one) has left it and is deleted. When
 * a project's limit changes nothing is moved: a larger limit keeps more rows from then on;
 * a smaller one refuses until fewer than the new limit are inside the window, and the first
 * hit accepted then deletes the surplus (all outside the window) at once. See
 * docs/operations.md, "Limits across processes".
 */
export class SlidingWindowLimiter {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly policy: string,
    private readonly windowMs = 3_600_000,
  ) {}

  /**
   * Serialises the transactions that charge this project's budget (PostgreSQL; SQLite's
   * BEGIN IMMEDIATE already does). Held until the transaction ends, so taking it also
   * waits for a transaction whose connection was lost to be committed or rolled back.
   */
  async lock(executor: Executor, projectId: string): Promise<void> {
    await lockKey(this.database, executor, `rate:${this.policy}:${projectId}`);
  }

  /** Read-only view, for the headers of responses that did not spend anything. */
  async peek(projectId: string, limit: number, executor: Executor = this.database.db): Promise<RateLimitState> {
    const now = this.clock.now();
    const view = await this.view(executor, projectId, now);
    return this.stateOf(executor, projectId, limit, now, view);
  }

  /**
   * Counts one request, inside `executor`'s write transaction, or throws `rate_limited`
   * (429 with Retry-After and the RateLimit headers) without counting it.
   */
  async consume(executor: Executor, projectId: string, limit: number): Promise<RateLimitState> {
    await this.lock(executor, projectId);
    const now = this.clock.now();
    const view = await this.view(executor, projectId, now);
    const count = countOf(view);
    if (count >= limit) {
      const state = await this.stateOf(executor, projectId, limit, now, view);
      throw new DocwrightError(
        'rate_limited',
        `This project may create jobs and send messages ${limit} times per hour; try again in ${state.resetSeconds} seconds.`,
        { status: 429, headers: { ...rateLimitHeaders(state), 'Retry-After': String(state.resetSeconds) } },
      );
    }
    // Never before the newest hit: a process whose clock lags must not break the order
    // the count relies on (its hit then leaves the window with the newest, not earlier).
    const hit = { seq: (view.newest?.seq ?? 0) + 1, at: Math.max(now, view.newest?.at ?? now) };
    await executor
      .insertInto('rate_limit_hits')
      .values({ project_id: projectId, bucket: this.policy, ...hit, kept: limit })
      .execute();
    // Keep the last `limit`. Stored hits go back at most `newest.kept` places, so the range
    // is bounded on both sides: one row while the limit stands, none after it grew, the
    // surplus once after it shrank; never rows deleted earlier (dead index entries).
    if (view.newest !== undefined && limit <= view.newest.kept) {
      await executor
        .deleteFrom('rate_limit_hits')
        .where('project_id', '=', projectId)
        .where('bucket', '=', this.policy)
        .where('seq', '>=', hit.seq - view.newest.kept)
        .where('seq', '<=', hit.seq - limit)
        .execute();
    }
    const oldest = view.oldestInWindow ?? hit;
    return { ...this.shape(limit), remaining: limit - count - 1, resetSeconds: this.secondsUntilGone(oldest, now) };
  }

  private async view(executor: Executor, projectId: string, now: number): Promise<WindowView> {
    const rows = await windowViewQuery(executor, projectId, this.policy, now - this.windowMs).execute();
    const hit = (which: string) => {
      const row = rows.find((candidate) => candidate.which === which);
      return row && { seq: Number(row.seq), at: Number(row.at), kept: Number(row.kept) };
    };
    return { newest: hit('newest'), oldestInWindow: hit('oldest') };
  }

  private async stateOf(executor: Executor, projectId: string, limit: number, now: number, view: WindowView): Promise<RateLimitState> {
    const count = countOf(view);
    let freeing = view.oldestInWindow;
    // Over the limit (it was lowered): room comes when the hit `count - limit` places
    // after the oldest leaves; one more point read, by primary key.
    if (freeing !== undefined && count > limit) {
      const row = await executor
        .selectFrom('rate_limit_hits')
        .select(['seq', 'at'])
        .where('project_id', '=', projectId)
        .where('bucket', '=', this.policy)
        .where('seq', '=', freeing.seq + count - limit)
        .executeTakeFirst();
      if (row) freeing = { seq: Number(row.seq), at: Number(row.at) };
    }
    return { ...this.shape(limit), remaining: Math.max(0, limit - count), resetSeconds: freeing ? this.secondsUntilGone(freeing, now) : 0 };
  }

  private shape(limit: number): Pick<RateLimitState, 'policy' | 'limit' | 'windowSeconds'> {
    return { policy: this.policy, limit, windowSeconds: Math.round(this.windowMs / 1000) };
  }

  private secondsUntilGone(hit: Hit, now: number): number {
    return Math.max(1, Math.ceil((hit.at + this.windowMs - now) / 1000));
  }
}
