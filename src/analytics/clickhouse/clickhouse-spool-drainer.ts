import type { Clock } from '../../core/clock.js';
import type { ClickHouseSpool, SpoolRecord } from './clickhouse-spool.js';

export interface SpoolDrainPolicy {
  /** A drain starts once this many hits wait… */
  minHits: number;
  /** …or once the oldest has waited this long (ms). */
  maxDelayMs: number;
  /** Hits per drain (one ClickHouse insert per site), at most; a larger single record goes alone. */
  maxHits: number;
  /** How long a drain holds its records before another may take them (ms): far above an insert's time. */
  leaseMs: number;
  /** Pause after a failed drain, doubled per failure in a row up to 30 s (ms). */
  retryMs: number;
}

/**
 * Sizes measured with bench/analytics-ingest-experiment.ts (docs/benchmarks.md, "ClickHouse
 * ingest: RowBinary and larger drains"): ClickHouse 18.16's insert cost per hit stops falling
 * past about 10–20 thousand rows, but its merges keep falling with fewer, larger parts (a
 * part per insert in the hits table and each of its views): drains of about a second's hits
 * under load cost it 3.5–4.5 µs of CPU per hit against 6.5–6.9 µs at a quarter second. A
 * lone hit waits at most a second; reports drain first, so no answer waits for the timer.
 */
export const DEFAULT_DRAIN_POLICY: SpoolDrainPolicy = Object.freeze({ minHits: 100_000, maxDelayMs: 1_000, maxHits: 200_000, leaseMs: 120_000, retryMs: 500 });

const IDLE_POLL_MS = 1_000;
const CLAIMED_POLL_MS = 50;
const MAX_RETRY_MS = 30_000;

interface FlushWaiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Drains the spool into ClickHouse in the background, one drain at a time per process, and
 * on demand: `flush` returns once every record added before it was called is written (by
 * this process or another sharing the file), so a report that flushes first counts every
 * hit whose request was answered before it. Timers are unref'd: an idle drainer keeps no
 * process alive; `stop` is the clean end.
 */
export class ClickHouseSpoolDrainer {
  private loop: Promise<void> | null = null;
  private stopping = false;
  private appendedSinceDrain = 0;
  private wake: (() => void) | null = null;
  private waiters: FlushWaiter[] = [];

  constructor(
    private readonly spool: ClickHouseSpool,
    /** Writes the records' rows into ClickHouse; resolves once they are there. */
    private readonly write: (records: readonly SpoolRecord[]) => Promise<void>,
    /** Wall time for ages and leases, shared with other processes: never a test's manual clock. */
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void,
    private readonly policy: SpoolDrainPolicy = DEFAULT_DRAIN_POLICY,
  ) {}

  start(): void {
    if (this.loop !== null || this.stopping) return;
    this.loop = this.run();
  }

  /** Tells the drainer that `hits` were added: it starts at once when enough wait. */
  added(hits: number): void {
    this.appendedSinceDrain += hits;
    if (this.appendedSinceDrain >= this.policy.minHits) this.wake?.();
  }

  /** Resolves once every record added before the call is in ClickHouse; rejects with the drain's error when one fails meanwhile. */
  async flush(): Promise<void> {
    const target = this.spool.lastId();
    while (this.spool.hasAtOrBefore(target)) {
      if (this.stopping) throw new Error('the ClickHouse spool is closed');
      this.start();
      await new Promise<void>((resolve, reject) => {
        this.waiters.push({ resolve, reject });
        this.wake?.();
      });
    }
  }

  /**
   * Stops the background drain after the one in flight, then drains what is left for at most
   * `finalMs` (what ClickHouse does not take by then stays in the file for the next start).
   */
  async stop(finalMs = 5_000): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    const deadline = this.clock.now() + finalMs;
    try {
      while (this.clock.now() < deadline && (await this.drainOnce()) > 0);
    } catch (error) {
      this.onError(error);
    }
    this.settle(new Error('the ClickHouse spool is closed'));
  }

  private async run(): Promise<void> {
    const failures = { inARow: 0 };
    while (!this.stopping) {
      try {
        await this.round(failures);
      } catch (error) {
        // The spool file itself failed (disk full, removed): reported, and tried again later.
        this.settle(error);
        this.onError(error);
        await this.sleep(MAX_RETRY_MS);
      }
    }
  }

  /** One turn of the loop: waits, or drains once. */
  private async round(failures: { inARow: number }): Promise<void> {
    const now = this.clock.now();
    const backlog = this.spool.backlog(now);
    const urgent = this.waiters.length > 0;
    if (backlog.hits === 0) {
      this.settle(null);
      await this.sleep(urgent || backlog.claimedRecords > 0 ? CLAIMED_POLL_MS : IDLE_POLL_MS);
      return;
    }
    const age = now - (backlog.oldestAddedAt ?? now);
    if (!urgent && backlog.hits < this.policy.minHits && age < this.policy.maxDelayMs) {
      // At most a poll interval: records other processes add to a shared file count too.
      await this.sleep(Math.min(this.policy.maxDelayMs - age, IDLE_POLL_MS));
      return;
    }
    try {
      await this.drainOnce();
      failures.inARow = 0;
      this.settle(null);
    } catch (error) {
      failures.inARow += 1;
      this.settle(error);
      this.onError(error);
      await this.sleep(Math.min(this.policy.retryMs * 2 ** (failures.inARow - 1), MAX_RETRY_MS));
    }
  }

  /** Takes and writes one drain's records; returns how many hits (0: nothing to take). */
  private async drainOnce(): Promise<number> {
    this.appendedSinceDrain = 0;
    const records = this.spool.take(this.policy.maxHits, this.clock.now(), this.policy.leaseMs);
    if (records.length === 0) return 0;
    const ids = records.map((record) => record.id);
    try {
      await this.write(records);
    } catch (error) {
      this.spool.release(ids);
      throw error;
    }
    this.spool.complete(ids);
    return records.reduce((sum, record) => sum + record.hits, 0);
  }

  /** Wakes every flush to check again (null), or fails them with a drain's error. */
  private settle(error: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) {
      if (error === null) waiter.resolve();
      else waiter.reject(error);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
}
