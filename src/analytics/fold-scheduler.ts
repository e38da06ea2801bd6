import type { AnalyticsStore, FoldMode } from './analytics-store.js';

export interface FoldSchedulerOptions {
  /** Fold once ingestion has been quiet this long. */
  idleMs?: number;
  /** …or this long after the first unfolded batch, however busy ingestion is. */
  maxDelayMs?: number;
  /** Raw hits per fold transaction: bounds how long one fold step holds the database. */
  chunkSize?: number;
}

// Each step holds the event loop (SQLite is synchronous) for a fraction of a second.
// Quiet means 2 s without an ingest request or report: reports no longer wait for the
// fold, and on SQLite each step stalls requests that arrive during it.
const DEFAULTS = { idleMs: 2_000, maxDelayMs: 60_000, chunkSize: 20_000 };

/**
 * Serialises folds in this process and runs them in the background after ingestion.
 * Reports do not wait for it: they count the hits still unfolded from the raw table (see
 * rollup-queries.ts), so folding only makes later reports cheaper. `foldNow` (the
 * service's `fold()`, for the CLI, tests and bulk loads) waits for a running fold and
 * then folds whatever was committed before it was called.
 *
 * A background fold gives way: it stops after the step during which a batch arrived.
 * Its steps would otherwise queue ahead of every database call of every ingest request
 * (the SQLite connection is taken in turn), and a fold that chases a busy stream of hits
 * would starve it. A stopped fold resumes at the next quiet moment or deadline.
 */
export class FoldScheduler {
  private readonly options: Required<FoldSchedulerOptions>;
  private chain: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** Ingest requests and reports started or ended, and when that last happened (performance.now()). */
  private activity = 0;
  private lastActivityAt = Number.NEGATIVE_INFINITY;
  /** Ingest requests and reports started and not finished: a background fold takes no further step while there are any. */
  private inFlight = 0;
  /** A background fold is scheduled or has stopped early with hits left. */
  private backgroundOwed = false;
  private closed = false;

  constructor(
    private readonly store: AnalyticsStore,
    options: FoldSchedulerOptions = {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /**
   * Called when an ingest request starts (before its body is prepared); call the returned
   * function when it ends, however it ends. A fold step that saw one start, or runs while
   * one is unfinished, is the background fold's last until ingestion is quiet again.
   */
  ingestStarted(): () => void {
    this.touch();
    return this.started();
  }

  /**
   * Called when a report starts; call the returned function when it ends. Like an ingest
   * request, a running report keeps the background fold from taking a step: the report
   * counts the unfolded hits itself, and a fold step beside it (on PostgreSQL another
   * backend on the same cores) would only slow the answer someone is waiting for. The
   * fold resumes once reports and ingestion are quiet, or at the deadline.
   */
  readStarted(): () => void {
    this.noteRead();
    return this.started();
  }

  private started(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.touch();
      // A deadline step that gave way to this request or report left no timer behind.
      if (!this.closed && this.backgroundOwed) this.schedule();
    };
  }

  /** Called after each stored batch. */
  noteIngest(): void {
    this.touch();
    if (this.closed) return;
    this.backgroundOwed = true;
    this.schedule();
  }

  /**
   * Called when a report starts. On SQLite a report's statements and the fold's steps
   * take turns on one thread, so a background fold steps aside (after its current step)
   * and resumes once reports and ingestion are quiet, or at the deadline.
   */
  noteRead(): void {
    this.touch();
    if (this.closed || !this.backgroundOwed) return;
    this.schedule();
  }

  private touch(): void {
    this.activity++;
    this.lastActivityAt = performance.now();
  }

  private schedule(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.background(false), this.options.idleMs).unref();
    this.deadlineTimer ??= setTimeout(() => this.background(true), this.options.maxDelayMs).unref();
  }

  /** Folds everything committed so far; resolves with the number of hits folded by this call. */
  foldNow(mode: Exclude<FoldMode, 'background'> = 'requested'): Promise<number> {
    return this.enqueue(async () => {
      await yieldToEventLoop();
      return true;
    }, mode);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearTimers();
    await this.chain;
  }

  private enqueue(betweenChunks: () => Promise<boolean>, mode: FoldMode = 'background'): Promise<number> {
    const run = this.chain.then(() => this.store.fold(this.options.chunkSize, betweenChunks, mode));
    // The chain only orders runs; a failed run must not poison the ones after it.
    this.chain = run.catch(() => {});
    return run;
  }

  private background(deadline: boolean): void {
    if (this.closed) return;
    if (!deadline && this.inFlight > 0) {
      // Quiet only in completions: requests are still being prepared or stored.
      this.schedule();
      return;
    }
    this.clearTimers();
    let stoppedEarly = false;
    let seen = this.activity;
    this.enqueue(async () => {
      // Long enough for requests that arrived during the step (the event loop was busy
      // with it on SQLite) to be read and started.
      await sleep(GIVE_WAY_MS);
      // Another step only while ingestion and reports are still quiet: a fold that
      // chased a slow stream of requests would stall every one of them for a step.
      stoppedEarly = this.closed || this.inFlight > 0 || this.activity !== seen || performance.now() - this.lastActivityAt < this.options.idleMs;
      seen = this.activity;
      return !stoppedEarly;
    })
      .then(() => {
        // Done, unless it gave way: then whoever it gave way to has scheduled the rest.
        if (!stoppedEarly && this.idleTimer === undefined) this.backgroundOwed = false;
      })
      .catch(this.onError);
  }

  private clearTimers(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.idleTimer = undefined;
    this.deadlineTimer = undefined;
  }
}

const GIVE_WAY_MS = 10;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Lets requests that arrived during a fold step run before the next step. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
