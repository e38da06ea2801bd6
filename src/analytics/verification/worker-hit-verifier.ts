import { BroadcastChannel } from 'node:worker_threads';
import type { VerificationWants } from './evidence-verifier.js';
import { claimOnlyVerifier, type HitVerifier, type VerificationInput } from './hit-verifier.js';
import { WorkerVerifierHolder, type VerifierSnapshot } from './verifier-snapshot.js';

/**
 * What an ingest worker is started with (IngestPool's `worker.data`): the evidence as it
 * was, with the shared nonce table (workerData shares a SharedArrayBuffer), and the name of
 * the channel on which the VerificationService posts later evidence and hears the checks
 * workers could not make.
 */
export interface WorkerVerifierData {
  channel: string;
  snapshot: VerifierSnapshot;
}

/** A later snapshot on the channel: without the nonce table, which the worker already shares. */
export type ChannelSnapshot = Omit<VerifierSnapshot, 'nonces'>;

export const wantsChannelName = (channel: string): string => `${channel}:wants`;

/** Sent on the wants channel once the worker listens: the service answers with the current snapshot. */
export interface WorkerResync {
  resync: true;
}

/**
 * Builds an ingest worker's verifier (the module IngestPool's workers import by URL). It
 * listens for new evidence on a BroadcastChannel, so the worker's message protocol stays
 * the pool's own, and sends back what it could not check.
 */
export function createHitVerifier(data: WorkerVerifierData): HitVerifier {
  const holder = new WorkerVerifierHolder(claimOnlyVerifier);
  holder.accept({ kind: 'verifier-snapshot', snapshot: data.snapshot });
  const updates = new BroadcastChannel(data.channel);
  const wants = new BroadcastChannel(wantsChannelName(data.channel));
  // The channels must not keep a worker alive that the pool lets go.
  updates.unref();
  wants.unref();
  updates.onmessage = (event) => {
    const snapshot = (event as { data: ChannelSnapshot }).data;
    holder.accept({ kind: 'verifier-snapshot', snapshot: { ...snapshot, nonces: data.snapshot.nonces } });
  };
  // What changed between the start data and this channel's opening was posted to nobody.
  wants.postMessage({ resync: true } satisfies WorkerResync);
  return {
    verify(input: VerificationInput) {
      const verdict = holder.verify(input);
      const wanted: VerificationWants | null = holder.takeWants();
      if (wanted !== null) wants.postMessage(wanted);
      return verdict;
    },
    get lastEvidence() {
      return holder.lastEvidence;
    },
    get rangesVersion() {
      return holder.rangesVersion;
    },
    storedAddress: (ip: string) => holder.storedAddress(ip),
  };
}
