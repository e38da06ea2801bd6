import { Worker } from 'node:worker_threads';
import { DocwrightError } from '../core/errors.js';
import { workerEntry } from '../core/runtime-paths.js';
import type { ReportWorkerData, ReportWorkerRequest, ReportWorkerResponse, SnapshotState } from './report-worker.js';

/** Two readers: the machine the targets are set on has two cores, and a report's big queries come in pairs. */
export const REPORT_THREADS = 2;
/** Reports waiting behind the running one; beyond this a report is refused rather than queued without end. */
export const MAX_WAITING_REPORTS = 64;
/** A fold committed by another process between the two readers' starts makes them start again; this many times at most. */
const MAX_SNAPSHOT_ATTEMPTS = 5;
const WORKER_ENTRY = workerEntry('analytics/report-worker');

type Request = ReportWorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;
type Success = Extract<ReportWorkerResponse, { ok: true }>;

/** A lost thread is worth a retry (503); a failed query is a fault of ours (500), its SQLite message kept for the log only. */
const reportFailed = (message: string, cause?: unknown, status = 503): DocwrightError =>
  new DocwrightError('analytics_report_failed', message, { status, ...(cause === undefined ? {} : { cause }) });

/** One reader thread and the requests it has not answered yet, answered in the order sent. */
class ReaderThread {
  readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (response: Success) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private stopped: Error | null = null;

  constructor(file: string) {
    this.worker = new Worker(WORKER_ENTRY, { workerData: { file } satisfies ReportWorkerData });
    // An idle reader must not keep a finished process (a CLI run, a test) alive; a busy
    // one holds it like any pending I/O, so nothing depends on other handles meanwhile.
    this.worker.unref();
    this.worker.on('message', (response: ReportWorkerResponse) => {
      const waiting = this.pending.get(response.id);
      this.pending.delete(response.id);
      if (this.pending.size === 0) this.worker.unref();
      if (response.ok) waiting?.resolve(response);
      else waiting?.reject(reportFailed('A report query failed.', new Error(response.message), 500));
    });
    this.worker.on('error', (error) => this.stop(error));
    this.worker.on('exit', (code) => this.stop(new Error(`exited with code ${code}`)));
  }

  get alive(): boolean {
    return this.stopped === null;
  }

  /** Requests sent and not answered: how busy the thread is. */
  get load(): number {
    return this.pending.size;
  }

  request(request: Request): Promise<Success> {
    if (this.stopped !== null) return Promise.reject(this.failure());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id });
    });
  }

  async close(): Promise<void> {
    // The connection closes in the thread first, so the database file is released cleanly.
    await this.request({ kind: 'close' }).catch(() => {});
    this.stopped ??= new Error('closed');
    await this.worker.terminate();
  }

  /** A crash fails what the thread held, at once: a report never waits on a dead thread. */
  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const waiting of this.pending.values()) waiting.reject(this.failure());
    this.pending.clear();
  }

  private failure(): DocwrightError {
    return reportFailed(`A report reader thread stopped (${this.stopped?.message ?? 'unknown'}); the report was not answered.`, this.stopped);
  }
}

/** What a report reads through: the snapshot's fold state, and queries spread over the threads. */
export interface ReportSession {
  state: SnapshotState;
  all: (sql: string, parameters: readonly unknown[]) => Promise<unknown[]>;
}

/** Test seams: faults injected at the points the snapshot protocol guards. */
export interface ReportPoolFaults {
  /** Runs after the first thread's snapshot starts and before the second's. */
  betweenSnapshotStarts?: () => void | Promise<void>;
  /** Runs once a report's snapshot is taken, before its first query. */
  afterSnapshot?: (workers: readonly Worker[]) => void;
}

const sameState = (a: SnapshotState, b: SnapshotState): boolean => a.folded === b.folded && a.last === b.last && a.prunedBefore === b.prunedBefore;

/**
 * Reports on a SQLite file read on REPORT_THREADS worker threads, each with a read-only
 * connection of its own, so a report's synchronous queries never block the event loop and
 * its independent big queries run on two cores at once. One report at a time has the
 * threads; each thread holds a read transaction for it, and the two transactions read the
 * same snapshot:
 *   - within this process, `hold` keeps the main connection (every write to the file from
 *     this process goes through it) while both threads begin and take their first read,
 *     so no commit of ours falls between the two snapshot starts;
 *   - another process writing the same file is not held by that. Each thread's first read
 *     is the fold state (folded mark, last sequence, prune watermark): if the two differ, a
 *     commit came between, and both start again. A fold, an insert or a prune moves that
 *     state; see docs/analytics.md "How reports read" for what other processes write.
 */
export class SqliteReportPool {
  private threads: ReaderThread[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  /** Snapshots started again because the two threads saw different fold states (observability, tests). */
  restarts = 0;
  faults: ReportPoolFaults = {};

  constructor(
    private readonly file: string,
    private readonly hold: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  read<T>(work: (session: ReportSession) => Promise<T>): Promise<T> {
    if (this.waiting >= MAX_WAITING_REPORTS) {
      return Promise.reject(
        new DocwrightError('analytics_reports_busy', 'Too many analytics reports are waiting; try again shortly.', {
          status: 503,
          headers: { 'Retry-After': '1' },
        }),
      );
    }
    this.waiting++;
    const run = this.chain.then(() => {
      this.waiting--;
      return this.inSnapshot(work);
    });
    // The chain only orders reports; a failed one must not fail the next.
    this.chain = run.catch(() => {});
    return run;
  }

  /** Resolves once the reports queued so far have finished (whichever way). */
  settled(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  /** Threads started and not stopped. */
  get running(): number {
    return this.threads.filter((thread) => thread.alive).length;
  }

  /**
   * Starts the threads ahead of the first report, which would otherwise pay for their
   * start (loading the driver, opening the file). The store calls it on its first write:
   * a store that ingests is about to be asked for a report.
   */
  warm(): void {
    // Only from none: threads that crash are replaced by the next report, not by every write.
    if (this.threads.length === 0) this.started();
  }

  /** Waits for the reports queued so far, then stops the threads; a later report starts new ones. */
  async close(): Promise<void> {
    // Reports queued while waiting are waited for too: none may lose its threads midway.
    for (let chain = this.chain; ; chain = this.chain) {
      await chain;
      if (chain === this.chain) break;
    }
    await Promise.all(this.threads.splice(0).map((thread) => thread.close()));
  }

  private async inSnapshot<T>(work: (session: ReportSession) => Promise<T>): Promise<T> {
    const threads = this.started();
    try {
      const state = await this.begin(threads);
      this.faults.afterSnapshot?.(threads.map((thread) => thread.worker));
      return await work({ state, all: async (sql, parameters) => (await leastBusy(threads).request({ kind: 'all', sql, parameters })).rows ?? [] });
    } finally {
      // Not awaited: a thread answers in order, so the next report's `begin` comes after
      // this `end` anyway, and a failed report must not wait for its sibling's query.
      for (const thread of threads) thread.request({ kind: 'end' }).catch(() => {});
    }
  }

  private async begin(threads: readonly ReaderThread[]): Promise<SnapshotState> {
    // Outside the hold: a thread still starting, or finishing a failed report's query,
    // answers this only when free, and meanwhile ingestion keeps the main connection.
    await Promise.all(threads.map((thread) => thread.request({ kind: 'end' })));
    for (let attempt = 1; ; attempt++) {
      const states = await this.hold(async () => {
        const first = await threads[0]!.request({ kind: 'begin' });
        await this.faults.betweenSnapshotStarts?.();
        const rest = await Promise.all(threads.slice(1).map((thread) => thread.request({ kind: 'begin' })));
        return [first, ...rest].map((response) => response.state!);
      });
      if (states.every((state) => sameState(state, states[0]!))) return states[0]!;
      this.restarts++;
      if (attempt >= MAX_SNAPSHOT_ATTEMPTS) {
        throw reportFailed(`The database kept changing between the report threads' snapshot starts (${attempt} attempts).`);
      }
    }
  }

  /** The threads, replacing any that stopped (a crash fails only the report it was serving). */
  private started(): ReaderThread[] {
    this.threads = this.threads.filter((thread) => thread.alive);
    while (this.threads.length < REPORT_THREADS) this.threads.push(new ReaderThread(this.file));
    return this.threads;
  }
}

function leastBusy(threads: readonly ReaderThread[]): ReaderThread {
  let best = threads[0]!;
  for (const thread of threads) if (thread.load < best.load) best = thread;
  return best;
}
