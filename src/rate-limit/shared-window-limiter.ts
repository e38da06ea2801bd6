import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../core/clock.js';
import type { Database } from '../db/database.js';
import { createGroupCommit, type GroupCommit } from '../db/group-commit.js';

export interface SharedWindowLimit {
  /** Names the counters in `rate_limit_windows`; one per kind of limit. */
  bucket: string;
  /** Requests per subject per window. */
  limit: number;
  windowMs: number;
}

interface Hit {
  windowStart: number;
  subject: string;
}

interface Counted {
  windowStart: number;
  subject: string;
  /** Hits the group adds to the counter. */
  count: number;
  /** The counter after them. */
  hits: number;
}

// Both dialects: add the group's hits to each counter and return the new totals.
const UPSERT_POSTGRES = `insert into rate_limit_windows as w (window_start, bucket, subject, hits)
  select window_start, $1::text, subject, hits from unnest($2::bigint[], $3::text[], $4::integer[]) as t (window_start, subject, hits)
  on conflict (window_start, bucket, subject) do update set hits = w.hits + excluded.hits
  returning window_start, subject, hits`;
const UPSERT_SQLITE = `insert into rate_limit_windows as w (window_start, bucket, subject, hits) values (?, ?, ?, ?)
  on conflict (window_start, bucket, subject) do update set hits = w.hits + excluded.hits
  returning hits`;
const FORGET = 'delete from rate_limit_windows where bucket = $1 and window_start < $2';

/** Requests that arrive while one group is written form the next; a group is one statement. */
const MAX_GROUP = 1_000;
/** Subjects remembered as over their limit for the current window, per process. */
const MAX_REFUSED = 10_000;

/**
 * A fixed-window counter per subject in the database, so the limit is exact across every
 * process sharing it: each hit gets its place in its window from the database's atomic
 * counter, and only the first `limit` places pass. Meant for high-volume public requests
 * (the page beacon): hits are not written one transaction each but in groups, one upsert
 * for whatever arrived while the previous group was written (`createGroupCommit`), so the
 * cost per hit falls as the traffic rises. No transaction of the caller's is involved: a
 * hit counts even if the request fails later (a refused or failed beacon is still a try).
 *
 * A subject found over its limit is remembered for the rest of the window, so a client
 * that keeps sending costs no database work until the window turns (the counter only rises
 * within a window, so the answer cannot change).
 *
 * Windows are aligned to the clock (`now - now % windowMs`); a client may send `limit` at
 * the end of one window and `limit` more at the start of the next. Measured and explained
 * in docs/analytics.md.
 */
export class SharedWindowLimiter {
  private readonly count: GroupCommit<Hit, number>;
  private sqliteUpsert: BetterSqlite3.Statement | undefined;
  private currentWindow = -1;
  private refused = new Set<string>();
  private forgetting: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly settings: SharedWindowLimit,
    private readonly onForgetError: (error: unknown) => void = () => {},
  ) {
    // PostgreSQL: two groups in flight, so one round trip does not hold up every request
    // behind it (each group's places stay exact: the upsert locks the rows it raises).
    const concurrency = database.dialect === 'postgres' ? 2 : 1;
    this.count = createGroupCommit({ commit: (hits) => this.commit(hits), maxItems: MAX_GROUP, maxWeight: MAX_GROUP, weightOf: () => 1, concurrency });
  }

  /** Counts one request of `subject`; 0 when it is allowed, else the whole seconds until its window ends. */
  async take(subject: string): Promise<number> {
    const { limit, windowMs } = this.settings;
    const now = this.clock.now();
    const windowStart = now - (now % windowMs);
    if (windowStart !== this.currentWindow) this.turnWindow(windowStart);
    const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    if (this.refused.has(subject)) return retryAfter;
    const place = await this.count({ windowStart, subject });
    if (place <= limit) return 0;
    // The window may have turned while the count was written: remember only the current one's.
    if (windowStart === this.currentWindow) {
      if (this.refused.size >= MAX_REFUSED) this.refused = new Set();
      this.refused.add(subject);
    }
    return retryAfter;
  }

  /** Waits for a deletion of old windows started by a turn (tests, shutdown). */
  async settled(): Promise<void> {
    await this.forgetting;
  }

  /** One upsert for the group; each hit's place is the counter before the group plus its rank within it. */
  private async commit(hits: Hit[]): Promise<number[]> {
    const groups = new Map<string, Counted>();
    for (const hit of hits) {
      const name = `${hit.windowStart}\n${hit.subject}`;
      const counted = groups.get(name);
      if (counted) counted.count += 1;
      else groups.set(name, { windowStart: hit.windowStart, subject: hit.subject, count: 1, hits: 0 });
    }
    // One order for every process, so two groups never wait on each other's rows in turn.
    const counters = [...groups.values()].sort((a, b) => a.windowStart - b.windowStart || (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
    await this.upsert(counters);
    const seen = new Map<string, number>();
    return hits.map((hit) => {
      const name = `${hit.windowStart}\n${hit.subject}`;
      const counted = groups.get(name)!;
      const rank = (seen.get(name) ?? 0) + 1;
      seen.set(name, rank);
      return counted.hits - counted.count + rank;
    });
  }

  private async upsert(counters: Counted[]): Promise<void> {
    const raw = this.database.raw;
    const { bucket } = this.settings;
    if (raw.dialect === 'postgres') {
      const { rows } = await raw.pool.query<{ window_start: number | string; subject: string; hits: number }>({
        name: 'docwright-rate-window-upsert',
        text: UPSERT_POSTGRES,
        values: [bucket, counters.map((counter) => counter.windowStart), counters.map((counter) => counter.subject), counters.map((counter) => counter.count)],
      });
      const byName = new Map(counters.map((counter) => [`${counter.windowStart}\n${counter.subject}`, counter]));
      for (const row of rows) byName.get(`${Number(row.window_start)}\n${row.subject}`)!.hits = row.hits;
      return;
    }
    // Under Kysely's connection lock, like every SQLite write. One counter is one statement
    // (its own transaction); several share a BEGIN IMMEDIATE, as in writeTransaction.
    await this.database.db.connection().execute(async () => {
      const statement = (this.sqliteUpsert ??= raw.connection.prepare(UPSERT_SQLITE));
      const raise = () => {
        for (const counter of counters) counter.hits = (statement.get(counter.windowStart, bucket, counter.subject, counter.count) as { hits: number }).hits;
      };
      if (counters.length === 1) raise();
      else raw.connection.transaction(raise).immediate();
    });
  }

  /** A new window: rows of windows before the previous one go (a lagging process may still count in the previous). */
  private turnWindow(windowStart: number): void {
    this.currentWindow = windowStart;
    this.refused = new Set();
    const before = windowStart - this.settings.windowMs;
    const raw = this.database.raw;
    this.forgetting = this.forgetting
      .then(async () => {
        if (raw.dialect === 'postgres') await raw.pool.query(FORGET, [this.settings.bucket, before]);
        else await this.database.db.connection().execute(async () => raw.connection.prepare(FORGET.replace(/\$\d/g, '?')).run(this.settings.bucket, before));
      })
      .catch(this.onForgetError);
  }
}
