import { hostname } from 'node:os';
import { randomBase62 } from '../core/ids.js';
import type { Log } from '../core/log.js';
import type { ClaimedJob, JobQueue } from './job-queue.js';
import type { LeaseClaim } from './lease-fence.js';
import type { Notifier } from './notifier.js';

/**
 * Why a run's signal was aborted; the handler decides what to do with the turn.
 * `stopped`: the API stopped the job (archive, cancel, project deletion), told by a
 * `docwright_job_control` notification or found by the control poll.
 */
export type StopReason = 'lease_lost' | 'shutdown' | 'stopped';

/**
 * A claimed job as its handler sees it. `token` fences every write of the run
 * (lease-fence.ts): once another worker has claimed the job, the database refuses them.
 */
export interface Lease extends LeaseClaim {
  signal: AbortSignal;
  /** Set once `signal` is aborted. */
  stopReason(): StopReason | null;
  /** A fenced write was refused: aborts `signal` with reason `lease_lost`, as a failed renewal would. */
  lost(): void;
}

export type JobHandler = (lease: Lease) => Promise<void>;

export interface WorkerPoolOptions {
  queue: JobQueue;
  notifier: Notifier;
  handler: JobHandler;
  logger: Log;
  concurrency: number;
  /** Leases one project may hold at once over every worker (DOCWRIGHT_JOBS_PER_PROJECT); unset = no cap. */
  jobsPerProject?: number;
  leaseMs: number;
  /** Fallback poll while idle: covers other SQLite processes and lost notifications. */
  idlePollMs?: number;
  /**
   * While jobs run, how often their queue rows are read to find runs stopped by another
   * process (a cancel deletes the row): SQLite has no cross-process notification, and a
   * PostgreSQL one can be lost. Default 1 s.
   */
  controlPollMs?: number;
}

interface RunningJob {
  controller: AbortController;
  reason: StopReason | null;
  done: Promise<void>;
}

function abortRun(entry: RunningJob, reason: StopReason): void {
  if (entry.controller.signal.aborted) return;
  entry.reason = reason;
  entry.controller.abort(new Error(reason));
}

/**
 * Runs up to `concurrency` jobs at once. It is woken by a notification when a job is
 * queued (in-process at once, across processes via PostgreSQL NOTIFY) and only falls
 * back to a slow poll. Each held job's lease is renewed at a third of its length.
 */
export class WorkerPool {
  readonly workerId = `${hostname()}:${process.pid}:${randomBase62(6)}`;
  private readonly running = new Map<string, RunningJob>();
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** null before start(), false once claiming stopped (a pool is not restarted). */
  private claiming: boolean | null = null;
  private unsubscribeQueued: (() => void) | null = null;
  /** A control poll is in flight: the next tick skips rather than piling reads up. */
  private polling = false;
  private readonly unsubscribers: Array<() => void> = [];

  constructor(private readonly options: WorkerPoolOptions) {}

  start(): void {
    if (this.claiming !== null) return;
    this.claiming = true;
    this.unsubscribeQueued = this.options.notifier.subscribe('docwright_jobs', () => this.poke());
    this.unsubscribers.push(this.options.notifier.subscribe('docwright_job_control', (jobId) => this.abort(jobId, 'stopped')));
    const control = setInterval(() => void this.pollControl(), this.options.controlPollMs ?? 1_000);
    control.unref();
    this.unsubscribers.push(() => clearInterval(control));
    this.loop = this.run();
  }

  /**
   * Aborts the runs whose queue row is gone (`stopped`: cancelled or deleted by another
   * process). One read, only while jobs run. A row that carries another token is left to
   * the lease renewal and the write fence (lease-fence.ts), which stop that run anyway.
   */
  private async pollControl(): Promise<void> {
    if (this.running.size === 0 || this.polling) return;
    this.polling = true;
    try {
      const entries = [...this.running.entries()];
      const queued = await this.options.queue.queuedJobIds(entries.map(([jobId]) => jobId));
      for (const [jobId, entry] of entries) {
        if (!queued.has(jobId)) abortRun(entry, 'stopped');
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, "reading the running jobs' queue rows failed; will retry");
    } finally {
      this.polling = false;
    }
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private abort(jobId: string, reason: StopReason): void {
    const entry = this.running.get(jobId);
    if (entry) abortRun(entry, reason);
  }

  private async run(): Promise<void> {
    const { queue, concurrency, jobsPerProject, leaseMs, logger } = this.options;
    const idlePollMs = this.options.idlePollMs ?? 1_000;
    while (this.claiming === true) {
      if (this.running.size >= concurrency) {
        await this.sleep(idlePollMs);
        continue;
      }
      let claimed: ClaimedJob | null;
      try {
        claimed = await queue.claim(this.workerId, leaseMs, jobsPerProject);
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() clears it while the claim is awaited, which narrowing cannot see
        if (!this.claiming) break;
        logger.error({ err: error }, 'claiming a job failed; retrying shortly');
        await this.sleep(idlePollMs);
        continue;
      }
      if (claimed === null) {
        const nextMs = await queue.nextReadyInMs(jobsPerProject).catch(() => null);
        await this.sleep(nextMs === null ? idlePollMs : Math.min(idlePollMs, Math.max(5, nextMs)));
        continue;
      }
      this.launch(claimed);
    }
  }

  /** Sleeps until woken by a notification, a finished job, or the timeout. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private launch({ jobId, token }: ClaimedJob): void {
    const { queue, leaseMs, logger, handler } = this.options;
    const controller = new AbortController();
    const entry: RunningJob = { controller, reason: null, done: Promise.resolve() };
    this.running.set(jobId, entry);
    const claim: LeaseClaim = { jobId, workerId: this.workerId, token };
    const heartbeat = setInterval(
      () => {
        void queue.extendLease(claim, leaseMs).then(
          (held) => {
            if (!held) abortRun(entry, 'lease_lost');
          },
          (error: unknown) => logger.warn({ err: error, jobId }, 'lease renewal failed; will retry'),
        );
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    const lease: Lease = { ...claim, signal: controller.signal, stopReason: () => entry.reason, lost: () => abortRun(entry, 'lease_lost') };
    entry.done = handler(lease)
      .catch((error: unknown) => logger.error({ err: error, jobId }, 'job handler failed; the lease will expire and the job be retried'))
      .finally(() => {
        clearInterval(heartbeat);
        // A run that outlived its lease may finish after this pool claimed the job again.
        if (this.running.get(jobId) === entry) this.running.delete(jobId);
        this.poke();
      });
  }

  get activeJobs(): number {
    return this.running.size;
  }

  /** The jobs this pool runs now (their workspaces are in use, whatever the store says). */
  runningJobIds(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Stops claiming: the claim loop ends and queued-job notifications are ignored. Running
   * jobs go on, keep renewing their leases and still stop when archived or cancelled.
   */
  async stopClaiming(): Promise<void> {
    if (this.claiming === false) return;
    this.claiming = false;
    this.unsubscribeQueued?.();
    this.unsubscribeQueued = null;
    this.poke();
    await this.loop;
  }

  /**
   * Gives running jobs `graceMs` to finish, then aborts the rest with reason `shutdown`
   * (their handlers give them back without counting the attempt) and waits for them.
   * Claiming stops first if it has not already.
   */
  async drain(graceMs: number): Promise<DrainResult> {
    await this.stopClaiming();
    const all = () => Promise.all([...this.running.values()].map((entry) => entry.done));
    const running = this.running.size;
    let timer: NodeJS.Timeout | undefined;
    const timedOut =
      running > 0 && (await Promise.race([all().then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)))]));
    clearTimeout(timer);
    const handedBack = timedOut ? this.running.size : 0;
    if (timedOut) {
      for (const jobId of this.running.keys()) this.abort(jobId, 'shutdown');
      await all();
    }
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
    return { running, handedBack };
  }

  /** stopClaiming() and drain(graceMs) in one. */
  async stop(graceMs: number): Promise<void> {
    await this.drain(graceMs);
  }
}

export interface DrainResult {
  /** Jobs running when the drain began. */
  running: number;
  /** Of those, the ones still running after the grace period, aborted and handed back. */
  handedBack: number;
}
