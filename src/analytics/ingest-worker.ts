import { parentPort, workerData } from 'node:worker_threads';
import { parseEventsBody, prepareBatch, transferableBuffers, type BatchContext, type PreparedBatch } from './prepare-batch.js';
import { VisitorIdentity } from './visitor-identity.js';
import { claimOnlyVerifier, type HitVerifier } from './verification/hit-verifier.js';

/** What a worker starts with (see IngestPool and IngestVerifier). */
export interface IngestWorkerData {
  secret: string;
  /** A module exporting createHitVerifier(data), or null for claimOnlyVerifier. */
  verifier: { module: string; data?: unknown } | null;
}

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
function serve(port: NonNullable<typeof parentPort>, secret: string, verifier: HitVerifier): void {
  const identity = new VisitorIdentity(secret);
  port.on('message', (request: WorkerRequest) => {
    const parsed = parseEventsBody(request.body);
    const batch = Array.isArray(parsed) ? prepareBatch(parsed, request.context, identity, verifier) : parsed;
    port.postMessage({ id: request.id, batch } satisfies WorkerResponse, batch.ok ? transferableBuffers(batch.columns) : []);
  });
}

async function workerVerifier(spec: IngestWorkerData['verifier']): Promise<HitVerifier> {
  if (spec === null) return claimOnlyVerifier;
  const module = (await import(spec.module)) as { createHitVerifier(data: unknown): HitVerifier };
  return module.createHitVerifier(spec.data);
}

if (parentPort !== null) {
  const data = workerData as IngestWorkerData;
  // Messages posted before the verifier is ready wait in the port's queue until serve() listens.
  serve(parentPort, data.secret, await workerVerifier(data.verifier));
}
