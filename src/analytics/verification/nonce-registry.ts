import { hash } from 'node:crypto';

/** Slots in the table: a bounded 16 bytes each (1 MiB by default), whatever the traffic. */
export const DEFAULT_NONCE_SLOTS = 65_536;
const PROBES = 16;
const LOCK = 0;
const HEADER = 1;
const SLOT_INTS = 4;

/**
 * Remembers the nonces of verified signatures until their signature expires, so a
 * captured signature replayed within its window is caught. The table lives in a
 * SharedArrayBuffer: every ingest worker thread of a process sees the same one (the main
 * thread creates it and posts it with the verifier state). It is per process: a replay
 * sent to another server process of the same deployment is not seen, which the docs
 * state; sharing it through the database would put a round trip on every signed hit.
 *
 * Open addressing over a fixed number of slots; each slot holds a 64-bit fingerprint of
 * (agent URL, key id, nonce), the expiry in seconds, and a fingerprint of the event id that
 * used it: the same event sent again (a retried batch whose first attempt failed after
 * verification) is the same hit, not a replay. When all probed slots hold live
 * nonces the one expiring first is evicted: memory stays bounded, and only a replay of
 * that oldest nonce could then pass.
 */
export class NonceRegistry {
  private readonly table: Int32Array;
  private readonly slots: number;

  constructor(buffer: SharedArrayBuffer = NonceRegistry.allocate()) {
    this.table = new Int32Array(buffer);
    this.slots = (this.table.length - HEADER) / SLOT_INTS;
  }

  static allocate(slots: number = DEFAULT_NONCE_SLOTS): SharedArrayBuffer {
    return new SharedArrayBuffer((HEADER + slots * SLOT_INTS) * 4);
  }

  get buffer(): SharedArrayBuffer {
    return this.table.buffer as SharedArrayBuffer;
  }

  /**
   * Records the nonce until `expiresAt` (seconds since the epoch) and answers whether it
   * was new; false means it was already seen and has not expired: a replay.
   */
  remember(scope: string, nonce: string, expiresAt: number, nowSeconds: number, eventId: string | null = null): boolean {
    return this.rememberDigest(nonceDigest(scope, nonce), expiresAt, nowSeconds, eventId === null ? null : ownerDigest(eventId));
  }

  /** `remember` with the hashes already taken (nonceDigest, ownerDigest): the caller reuses them for the deployment-wide table. */
  rememberDigest(digest: Buffer, expiresAt: number, nowSeconds: number, ownerHash: Buffer | null): boolean {
    const owner = ownerHash === null ? 0 : ownerHash.readInt32LE(0) | 1;
    const high = digest.readInt32LE(0) | 1; // never 0: 0 marks an empty slot
    const low = digest.readInt32LE(4);
    const start = (digest.readUInt32LE(8) % this.slots) >>> 0;
    this.lock();
    try {
      let victim = -1;
      let victimExpiry = Infinity;
      for (let probe = 0; probe < PROBES; probe++) {
        const at = HEADER + ((start + probe) % this.slots) * SLOT_INTS;
        const expiry = this.table[at + 2]!;
        const live = this.table[at] !== 0 && expiry > nowSeconds;
        if (live && this.table[at] === high && this.table[at + 1] === low) return owner !== 0 && this.table[at + 3] === owner;
        const rank = live ? expiry : -1;
        if (rank < victimExpiry) {
          victim = at;
          victimExpiry = rank;
        }
      }
      this.table[victim] = high;
      this.table[victim + 1] = low;
      this.table[victim + 2] = Math.min(expiresAt, 0x7fffffff);
      this.table[victim + 3] = owner;
      return true;
    } finally {
      Atomics.store(this.table, LOCK, 0);
    }
  }

  private lock(): void {
    // Held for a few array reads; contention between ingest threads is rare and short.
    while (Atomics.compareExchange(this.table, LOCK, 0, 1) !== 0) Atomics.wait(this.table, LOCK, 1, 1);
  }
}

/** SHA-256 of (scope, nonce): the fingerprint both nonce tables key on. */
// One-shot hash(): half the CPU of a createHash object per call, twice per signed hit.
export function nonceDigest(scope: string, nonce: string): Buffer {
  return hash('sha256', `${scope}\u0000${nonce}`, 'buffer');
}

export function ownerDigest(eventId: string): Buffer {
  return hash('sha256', eventId, 'buffer');
}
