import { systemClock, type Clock } from '../../core/clock.js';
import { EvidenceVerifier, type VerificationWants } from './evidence-verifier.js';
import type { StoredAddress } from './address-block.js';
import type { HitVerifier } from './hit-verifier.js';
import { snapshotKeyLookup, type DirectorySnapshot } from './key-directory-cache.js';
import { NonceRegistry } from './nonce-registry.js';
import type { RangeCatalog } from './range-catalog.js';

/**
 * The verifier's evidence as plain data, for an ingest worker thread: ranges, fetched key
 * directories, cached reverse DNS verdicts, and the nonce table (shared memory, so every
 * thread of the process sees every nonce).
 */
export interface VerifierSnapshot {
  version: number;
  ranges: RangeCatalog;
  directories: DirectorySnapshot[];
  rdns: Array<[string, boolean]>;
  nonces: SharedArrayBuffer;
}

/** The message the pool posts to each worker when the evidence changes. */
export interface VerifierSnapshotMessage {
  kind: 'verifier-snapshot';
  snapshot: VerifierSnapshot;
}

export function isVerifierSnapshotMessage(message: unknown): message is VerifierSnapshotMessage {
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'verifier-snapshot';
}

export function verifierFromSnapshot(snapshot: VerifierSnapshot, clock: Clock = systemClock): EvidenceVerifier {
  const rdns = new Map(snapshot.rdns);
  return new EvidenceVerifier({
    ranges: snapshot.ranges,
    keys: snapshotKeyLookup(snapshot.directories, () => clock.now()),
    rdnsVerdict: (ip) => rdns.get(ip),
    nonces: new NonceRegistry(snapshot.nonces),
    clock,
  });
}

/**
 * What an ingest worker holds: the current verifier, replaced on each snapshot message,
 * and the checks its hits asked for, returned with the batch so the main thread can run
 * them. Until the first snapshot arrives it verifies with `fallback` (claim only).
 */
export class WorkerVerifierHolder implements HitVerifier {
  private current: EvidenceVerifier | null = null;
  private version = -1;

  constructor(private readonly fallback: HitVerifier) {}

  /** Handles a message if it is a snapshot; true when it was. One no newer than the evidence held (a resync answer overtaken by a publish) is ignored. */
  accept(message: unknown): boolean {
    if (!isVerifierSnapshotMessage(message)) return false;
    if (message.snapshot.version < this.version || (message.snapshot.version === this.version && this.current !== null)) return true;
    this.version = message.snapshot.version;
    this.current = verifierFromSnapshot(message.snapshot);
    return true;
  }

  verify(input: Parameters<HitVerifier['verify']>[0]): ReturnType<HitVerifier['verify']> {
    return (this.current ?? this.fallback).verify(input);
  }

  takeWants(): VerificationWants | null {
    return this.current?.takeWants() ?? null;
  }

  get lastEvidence(): HitVerifier['lastEvidence'] {
    return this.current?.lastEvidence;
  }

  get rangesVersion(): string | undefined {
    return this.current?.rangesVersion;
  }

  storedAddress(ip: string): StoredAddress | null {
    return this.current?.storedAddress(ip) ?? null;
  }
}
