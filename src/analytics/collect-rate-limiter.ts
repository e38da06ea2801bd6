import type { Clock } from '../core/clock.js';

export interface CollectRateLimit {
  /** Beacons per sender (address, per project) per window. */
  limit: number;
  windowMs: number;
  /** Senders tracked at once; bounds memory under a flood of distinct addresses. */
  maxKeys: number;
}

export const DEFAULT_COLLECT_RATE_LIMIT: CollectRateLimit = { limit: 120, windowMs: 60_000, maxKeys: 100_000 };

/**
 * Fixed-window counter per sender for the public beacon endpoint. In memory, per
 * process: it stops one client flooding a project's numbers, not a distributed attack.
 * Keys are hashes, never addresses.
 */
export class CollectRateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly settings: CollectRateLimit = DEFAULT_COLLECT_RATE_LIMIT,
  ) {}

  /** Counts one beacon; returns 0 when allowed, else seconds until the sender's window resets. */
  take(key: string): number {
    const now = this.clock.now();
    let window = this.windows.get(key);
    if (window === undefined || now - window.start >= this.settings.windowMs || now < window.start) {
      if (window === undefined && this.windows.size >= this.settings.maxKeys) this.evictExpired(now);
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.settings.limit) return Math.max(1, Math.ceil((window.start + this.settings.windowMs - now) / 1000));
    window.count++;
    return 0;
  }

  private evictExpired(now: number): void {
    for (const [key, window] of this.windows) if (now - window.start >= this.settings.windowMs) this.windows.delete(key);
    // Still full: all windows are live, so forgetting them all is the only bounded choice.
    if (this.windows.size >= this.settings.maxKeys) this.windows = new Map();
  }
}
