import { createHmac, hkdfSync } from 'node:crypto';
import { isIPv4 } from 'node:net';

/**
 * Turns what a hit says about its sender into a 63-bit visitor number. The raw IP is
 * only ever an HMAC input: the key is derived per project from the instance secret, so
 * the numbers cannot be joined across projects, and without the secret an address
 * cannot be tested against them. 63 bits fit a signed 64-bit column in both databases;
 * two of a million visitors share a number with probability about 5e-8.
 */
export class VisitorIdentity {
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly secret: string) {}

  /** From an address and user agent; `day` (UTC day number) is mixed in when the project rotates ids daily. */
  fromAddress(projectId: string, ip: string, userAgent: string, day: number | null): bigint {
    const data = day === null ? `${normaliseAddress(ip)}\n${userAgent}` : `${normaliseAddress(ip)}\n${userAgent}\n${day}`;
    return this.digest(projectId, data);
  }

  /** From a sender-supplied visitor id; the NUL prefix keeps this space apart from addresses. */
  fromVisitorId(projectId: string, visitorId: string): bigint {
    return this.digest(projectId, `\u0000id\n${visitorId}`);
  }

  private digest(projectId: string, data: string): bigint {
    const digest = createHmac('sha256', this.keyFor(projectId)).update(data).digest();
    return digest.readBigUInt64BE(0) >> 1n;
  }

  private keyFor(projectId: string): Buffer {
    let key = this.keys.get(projectId);
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', this.secret, 'docwright/analytics/visitor', projectId, 32));
      this.keys.set(projectId, key);
    }
    return key;
  }
}

/** One spelling per address: IPv4-mapped IPv6 (how dual-stack sockets report IPv4) becomes plain IPv4. */
export function normaliseAddress(ip: string): string {
  const lower = ip.toLowerCase();
  if (lower.startsWith('::ffff:')) {
    const tail = lower.slice(7);
    if (isIPv4(tail)) return tail;
  }
  return lower;
}
