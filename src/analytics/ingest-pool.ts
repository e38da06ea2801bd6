import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { IngestWorkerData, WorkerRequest, WorkerResponse } from './ingest-worker.js';
import { parseEventsBody, prepareBatch, type BatchContext, type PreparedBatch } from './prepare-batch.js';
import { VisitorIdentity } from './visitor-identity.js';
import { workerEntry } from '../core/runtime-paths.js';
import { claimOnlyVerifier, type HitVerifier } from './verification/hit-verifier.js';

/**
 * The verifier of ingested hits (src/analytics/verification/hit-verifier.ts). A function
 * cannot cross into a worker thread, so a worker builds its own from `worker`: the URL of a
 * module exporting `createHitVerifier(data): HitVerifier`, and that data (structured-clone
 * safe), or a function that returns it, called as each worker starts (workers start when
 * batches first need them, so evidence read when the pool was built may be long out of date).
 * A verifier without `worker` makes the pool prepare every batch on the calling thread,
 * which gives the same result, more slowly.
 */
export interface IngestVerifier {
  verifier: HitVerifier;
  worker?: { module: string; data?: unknown };
}

export interface IngestPoolOptions {
  /** Keys visitor hashing, as in the service. */
  secret: string;
  /** Worker threads; 0 prepares every batch on the calling thread. Default: one fewer than the CPUs, at most 4. */
  workers?: number;
  onWorkerError?: (error: unknown) => void;
  /** Default: claimOnlyVerifier, which workers have built in. */
  verifier?: IngestVerifier;
}

interface Pending {
  body: Uint8Array;
  context: BatchContext;
  resolve: (batch: PreparedBatch) => void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** After this many worker failures the pool stops starting workers and prepares batches inline. */
const MAX_WORKER_FAILURES = 3;
const WORKER_ENTRY = workerEntry('analytics/ingest-worker');

/**
 * Prepares event batches (JSON parsing, validation, classification, visitor hashing) on
 * worker threads, so the request thread only encodes dictionaries and writes rows: that
 * per-event work is most of an ingest request's CPU, and on more than one core it then
 * overlaps with the database writes. Falls back to the calling thread when workers are
 * off or keep failing, and for the batches a failed worker held; the result is the same
 * either way.
 */
export class IngestPool {
  private readonly slots: Slot[] = [];
  private readonly size: number;
  private readonly identity: VisitorIdentity;
  private readonly verifier: HitVerifier;
  private failures = 0;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: IngestPoolOptions) {
    // On one CPU a worker would only add copying.
    const workers = options.workers ?? Math.max(0, Math.min(4, availableParallelism() - 1));
    this.size = options.verifier !== undefined && options.verifier.worker === undefined ? 0 : workers;
    this.identity = new VisitorIdentity(options.secret);
    this.verifier = options.verifier?.verifier ?? claimOnlyVerifier;
  }

  prepare(body: Uint8Array, context: BatchContext): Promise<PreparedBatch> {
    const slot = this.slot();
    if (slot === null) return Promise.resolve(this.prepareInline(body, context));
    const id = this.nextId++;
    return new Promise((resolve) => {
      slot.pending.set(id, { body, context, resolve });
      slot.worker.postMessage({ id, body, context } satisfies WorkerRequest);
    });
  }

  prepareInline(body: Uint8Array, context: BatchContext): PreparedBatch {
    const parsed = parseEventsBody(body);
    return Array.isArray(parsed) ? prepareBatch(parsed, context, this.identity, this.verifier) : parsed;
  }

  /** Worker threads running now. */
  get running(): number {
    return this.slots.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  /** The least busy worker, starting one while fewer than `size` run; null for inline. */
  private slot(): Slot | null {
    if (this.closed || this.size === 0 || this.failures >= MAX_WORKER_FAILURES) return null;
    if (this.slots.length < this.size) return this.start();
    let best = this.slots[0]!;
    for (const slot of this.slots) if (slot.pending.size < best.pending.size) best = slot;
    return best;
  }

  private start(): Slot {
    const spec = this.options.verifier?.worker;
    const data: unknown = typeof spec?.data === 'function' ? (spec.data as () => unknown)() : spec?.data;
    const workerData: IngestWorkerData = { secret: this.options.secret, verifier: spec === undefined ? null : { module: spec.module, data } };
    const worker = new Worker(WORKER_ENTRY, { workerData });
    // Idle workers must not keep a finished process (a CLI run, a test) alive.
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    this.slots.push(slot);
    worker.on('message', (response: WorkerResponse) => {
      const waiting = slot.pending.get(response.id);
      slot.pending.delete(response.id);
      waiting?.resolve(response.batch);
    });
    const fail = (error: unknown) => {
      const index = this.slots.indexOf(slot);
      if (index === -1) return;
      this.slots.splice(index, 1);
      if (this.closed) return;
      this.failures++;
      this.options.onWorkerError?.(error);
      // The batches it held are prepared here instead: a crashed worker costs time, not requests.
      for (const waiting of slot.pending.values()) waiting.resolve(this.prepareInline(waiting.body, waiting.context));
      slot.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`ingest worker exited with code ${code}`)));
    return slot;
  }
}
