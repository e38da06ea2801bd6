import { isIPv6 } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../core/clock.js';

export interface ClientRateLimit {
  /** Requests per client per window. */
  limit: number;
  windowMs: number;
  /** Clients tracked at once. */
  maxClients: number;
}

/**
 * A fixed-window request counter per client address, in this process only. Meant for
 * public pages, where a database write per view (what SlidingWindowLimiter does for the
 * API) would cost more than the page: it stops one client walking or hammering pages, not
 * a distributed attack, and with several processes each counts its own share.
 *
 * lru-cache bounds the memory: under a flood of distinct addresses the least recently seen
 * client is forgotten (its count starts again), never the process's memory.
 */
export class ClientRateLimiter {
  private readonly windows: LRUCache<string, { start: number; count: number }>;

  constructor(
    private readonly clock: Clock,
    private readonly settings: ClientRateLimit,
  ) {
    this.windows = new LRUCache({ max: settings.maxClients });
  }

  /** Counts one request; 0 when it is allowed, else the whole seconds until the client may retry. */
  take(address: string): number {
    const key = clientKey(address);
    const now = this.clock.now();
    let window = this.windows.get(key);
    if (window === undefined || now - window.start >= this.settings.windowMs || now < window.start) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.settings.limit) return Math.max(1, Math.ceil((window.start + this.settings.windowMs - now) / 1000));
    window.count += 1;
    return 0;
  }
}

/**
 * One key per client: an IPv4 address, or an IPv6 /64 (one host usually holds a whole /64,
 * and counting its addresses one by one would let it rotate past the limit).
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups] : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
