import { DocwrightError } from '../core/errors.js';

export interface StreamLimits {
  /** Open event streams one process serves at once (503 beyond). */
  perProcess: number;
  /** Open event streams of one API key in one process (429 beyond). */
  perKey: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { perProcess: 1_000, perKey: 20 };

/**
 * Counts the open event streams of a process, in total and per API key. A stream holds a
 * socket, two timers and a subscription for up to an hour, so without a per-key share one
 * key (or a leaked one) could take every slot of the process and lock other keys out.
 * In memory: the slots being protected are this process's own.
 */
export class StreamSlots {
  private total = 0;
  private readonly byKey = new Map<string, number>();
  /** How to end each held slot's stream when the process shuts down. */
  private readonly enders = new Set<() => void | Promise<void>>();

  constructor(private readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS) {}

  /**
   * Takes a slot for `keyId`, or throws without taking one; the returned function gives it
   * back (once). `end`, if given, is how endAll() ends the slot's stream.
   */
  acquire(keyId: string, end?: () => void | Promise<void>): () => void {
    const held = this.byKey.get(keyId) ?? 0;
    if (held >= this.limits.perKey) {
      throw new DocwrightError(
        'too_many_streams_for_key',
        `This API key (or signed-in user) already has ${this.limits.perKey} open event streams; close one, or poll the job instead.`,
        // A slot frees when a stream of this key ends; a few seconds is a fair guess.
        { status: 429, headers: { 'Retry-After': '10' } },
      );
    }
    if (this.total >= this.limits.perProcess)
      throw new DocwrightError('too_many_streams', 'Too many open event streams; poll the job instead.', { status: 503, headers: { 'Retry-After': '10' } });
    this.total += 1;
    this.byKey.set(keyId, held + 1);
    if (end) this.enders.add(end);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (end) this.enders.delete(end);
      this.total -= 1;
      const left = (this.byKey.get(keyId) ?? 1) - 1;
      if (left === 0) this.byKey.delete(keyId);
      else this.byKey.set(keyId, left);
    };
  }

  /** Ends every open stream (each with its final event); resolves with how many there were once all have ended. */
  async endAll(): Promise<number> {
    const enders = [...this.enders];
    await Promise.all(enders.map(async (end) => end()));
    return enders.length;
  }

  /** Streams open now, for tests and diagnostics. */
  open(keyId?: string): number {
    return keyId === undefined ? this.total : (this.byKey.get(keyId) ?? 0);
  }
}
