import { parentPort, workerData } from 'node:worker_threads';
import { parseEventsBody, prepareBatch, transferableBuffers, type BatchContext, type PreparedBatch } from './prepare-batch.js';
import { VisitorIdentity } from './visitor-identity.js';

/** A request to an ingest worker: a raw events body and its context. */
export interface WorkerRequest {
  id: number;
  body: Uint8Array;
  context: BatchContext;
}

export interface WorkerResponse {
  id: number;
  batch: PreparedBatch;
}

/** Runs in a worker thread (see ingest-pool.ts): JSON parsing, validation, classification, hashing. */
function serve(port: NonNullable<typeof parentPort>, secret: string): void {
  const identity = new VisitorIdentity(secret);
  port.on('message', (request: WorkerRequest) => {
    const parsed = parseEventsBody(request.body);
    const batch = Array.isArray(parsed) ? prepareBatch(parsed, request.context, identity) : parsed;
    port.postMessage({ id: request.id, batch } satisfies WorkerResponse, batch.ok ? transferableBuffers(batch.columns) : []);
  });
}

if (parentPort !== null) serve(parentPort, (workerData as { secret: string }).secret);
