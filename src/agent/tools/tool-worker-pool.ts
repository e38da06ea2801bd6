import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FromWorker, TaskOf, ToolTask, ToolTaskKind, ToolTaskResults, ToWorker } from './tool-worker-protocol.js';
import type { TaskOutcome } from '../../docs-site/task-outcome.js';
import { workerEntry } from '../../core/runtime-paths.js';

export type { TaskOutcome } from '../../docs-site/task-outcome.js';

export interface ToolWorkerPoolOptions {
  /** Most worker threads at once. Default: one fewer than the CPUs, from 1 to 2. */
  size?: number;
  /** An idle worker is stopped after this long. Default 30 s. */
  idleMs?: number;
  /** Heap limit of one worker; a task above it ends as `out-of-memory`. Default 512 MB. */
  maxHeapMb?: number;
  /** A worker that has not loaded its modules after this long counts as failed to start. Default 60 s. */
  startTimeoutMs?: number;
}

interface Job {
  id: number;
  task: ToolTask;
  timeoutMs: number;
  resolve: (outcome: TaskOutcome<unknown>) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  /** Sent while `job` runs, started by the worker right after it (see `pump`). */
  next: Job | null;
  /** The running task's time limit, or the start-up limit before `ready`. */
  timer: NodeJS.Timeout | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

const WORKER_ENTRY = workerEntry('agent/tools/tool-worker');
/** After this many workers in a row fail to start, tasks fail instead of starting more. */
const MAX_START_FAILURES = 3;

/**
 * Worker threads for the tool work whose cost the repository or the model controls:
 * compiling MDX, parsing YAML and JSON, reading and editing large files. The thread that
 * answers HTTP requests only waits for messages, so no page can stall it; a task that
 * overruns its time limit has its worker terminated (a synchronous compile cannot be
 * interrupted any other way) and the next task gets a fresh one.
 *
 * Written here rather than taken from a library: no pool is a declared dependency (vitest
 * brings tinypool, but only to development installs), and the time limit must start when
 * a worker that has loaded its modules receives the task, not when the task is queued or
 * while a thread is still starting, which tinypool's abort signal cannot express.
 *
 * Workers are reused across tasks and tool calls, started on demand, unreferenced while
 * idle (an idle pool never keeps the process alive) and stopped after `idleMs` idle or
 * by `close()`.
 */
export class ToolWorkerPool {
  readonly size: number;
  private readonly idleMs: number;
  private readonly maxHeapMb: number;
  private readonly startTimeoutMs: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private startFailures = 0;
  private started = 0;
  private closed = false;

  constructor(options: ToolWorkerPoolOptions = {}) {
    // One core stays with the thread answering requests.
    this.size = options.size ?? Math.max(1, Math.min(2, availableParallelism() - 1));
    this.idleMs = options.idleMs ?? 30_000;
    this.maxHeapMb = options.maxHeapMb ?? 512;
    this.startTimeoutMs = options.startTimeoutMs ?? 60_000;
  }

  /**
   * Runs one task on a worker; the time limit counts from the moment a started worker
   * receives it, or, for a task sent ahead to a busy worker, from when the pool hears that
   * the task before it is done.
   */
  run<Kind extends ToolTaskKind>(task: TaskOf<Kind>, timeoutMs: number): Promise<TaskOutcome<ToolTaskResults[Kind]>> {
    if (this.closed) return Promise.reject(new Error('The tool workers have been stopped.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, timeoutMs, resolve: resolve as Job['resolve'], reject });
      this.pump();
    });
  }

  /** Workers started so far and running now (for tests and measurements). */
  stats(): { started: number; running: number } {
    return { started: this.started, running: this.slots.length };
  }

  /** Stops every worker; queued and running tasks reject. The pool takes no new tasks. */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = new Error('The tool workers have been stopped.');
    for (const job of this.queue.splice(0)) job.reject(stopped);
    const exits = this.slots.splice(0).map((slot) => {
      slot.job?.reject(stopped);
      slot.next?.reject(stopped);
      slot.job = null;
      slot.next = null;
      return this.retire(slot, true);
    });
    await Promise.all(exits);
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const free = this.slots.find((slot) => slot.ready && slot.job === null);
      if (free !== undefined) {
        this.dispatch(free, this.queue.shift()!);
        continue;
      }
      const starting = this.slots.filter((slot) => !slot.ready).length;
      if (this.slots.length < this.size && starting < this.queue.length) {
        if (this.startFailures >= MAX_START_FAILURES) {
          const error = new Error(`The tool workers failed to start ${this.startFailures} times in a row.`);
          for (const job of this.queue.splice(0)) job.reject(error);
          return;
        }
        this.start();
        continue;
      }
      // Every worker is busy: one gets the next task now and starts it the moment its
      // current one ends, instead of idling until this thread has taken the result and
      // sent another. Measured on the docs check (1.5 ms tasks, one niced worker), the
      // worker otherwise waited about a tenth of the time.
      const busy = this.slots.find((slot) => slot.ready && slot.next === null);
      if (busy === undefined) return;
      busy.next = this.queue.shift()!;
      this.post(busy, { type: 'task', id: busy.next.id, task: busy.next.task });
    }
  }

  private start(): void {
    const worker = new Worker(WORKER_ENTRY, { resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb } });
    this.started += 1;
    const slot: Slot = { worker, ready: false, job: null, next: null, timer: undefined, idleTimer: undefined };
    this.slots.push(slot);
    slot.timer = setTimeout(() => {
      this.startFailures += 1;
      void this.retire(slot);
      this.pump();
    }, this.startTimeoutMs);
    worker.on('message', (message: FromWorker) => this.receive(slot, message));
    worker.on('error', (error: Error & { code?: string }) => this.lost(slot, error));
    worker.on('exit', (code) => this.lost(slot, new Error(`The tool worker exited with code ${code}.`)));
  }

  private receive(slot: Slot, message: FromWorker): void {
    // A retired worker's late messages (its 'ready' while retire() waits for it) are not work.
    if (!this.slots.includes(slot)) return;
    if (message.type === 'ready') {
      clearTimeout(slot.timer);
      slot.ready = true;
      this.startFailures = 0;
      this.pump();
      if (slot.job === null) this.idle(slot);
      return;
    }
    const job = slot.job;
    if (job?.id !== message.id) return;
    clearTimeout(slot.timer);
    slot.job = null;
    if (message.type === 'done') job.resolve({ status: 'done', result: message.result });
    else if (message.type === 'failure') job.resolve({ status: 'failure', message: message.message });
    else job.resolve({ status: 'crashed', message: message.message });
    // The worker has started the task sent ahead; its time limit counts from now, a
    // message's latency after it really started.
    if (slot.next !== null) {
      slot.job = slot.next;
      slot.next = null;
      this.limit(slot, slot.job);
    }
    this.pump();
    if (slot.job === null) this.idle(slot);
  }

  private dispatch(slot: Slot, job: Job): void {
    clearTimeout(slot.idleTimer);
    slot.worker.ref();
    slot.job = job;
    this.post(slot, { type: 'task', id: job.id, task: job.task });
    this.limit(slot, job);
  }

  private limit(slot: Slot, job: Job): void {
    slot.timer = setTimeout(() => {
      slot.job = null;
      job.resolve({ status: 'timeout', timeoutMs: job.timeoutMs });
      this.requeueNext(slot);
      void this.retire(slot);
      this.pump();
    }, job.timeoutMs);
  }

  /** A task sent ahead to a worker that is being stopped goes back to the front of the queue. */
  private requeueNext(slot: Slot): void {
    if (slot.next === null) return;
    this.queue.unshift(slot.next);
    slot.next = null;
  }

  /** Waiting for work: the worker no longer holds the process open, and stops after a while. */
  private idle(slot: Slot): void {
    slot.worker.unref();
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => void this.retire(slot), this.idleMs);
    slot.idleTimer.unref();
  }

  /** The worker died on its own (an exception, out of memory, exit). */
  private lost(slot: Slot, error: Error & { code?: string }): void {
    if (!this.slots.includes(slot)) return;
    void this.retire(slot);
    if (!slot.ready) this.startFailures += 1;
    const job = slot.job;
    slot.job = null;
    this.requeueNext(slot);
    if (job !== null) {
      job.resolve(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { status: 'out-of-memory', maxHeapMb: this.maxHeapMb } : { status: 'crashed', message: error.message },
      );
    }
    this.pump();
  }

  /**
   * Takes the worker out of the pool and stops it. `untilLoaded` is for a caller that waits
   * on the result (close()): a worker still loading is then stopped once loaded, see below.
   * The others do not wait, so a loading worker (one past its start limit, say) stops now.
   */
  private retire(slot: Slot, untilLoaded = false): Promise<void> {
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
    clearTimeout(slot.timer);
    clearTimeout(slot.idleTimer);
    // terminate() settles on the worker's 'exit' event, which an idle (unreferenced) worker
    // would not keep the process alive for.
    slot.worker.ref();
    const stop = (): Promise<void> =>
      slot.worker.terminate().then(
        () => undefined,
        () => undefined,
      );
    if (slot.ready || !untilLoaded) return stop();
    // A worker stopped while it is still loading its modules sometimes never emits 'exit'
    // (Node 20 and 22: about one close in twenty when the docs check ended while its
    // second worker started), so terminate() never settled and a CLI whose last step is
    // close() exited 13, "unsettled top-level await". It is stopped once loaded instead.
    return new Promise<void>((resolve) => {
      const go = (): void => {
        clearTimeout(limit);
        void stop().then(resolve);
      };
      const limit = setTimeout(go, this.startTimeoutMs);
      slot.worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') go();
      });
      slot.worker.once('exit', () => {
        clearTimeout(limit);
        resolve();
      });
    });
  }

  private post(slot: Slot, message: ToWorker): void {
    slot.worker.postMessage(message);
  }
}
