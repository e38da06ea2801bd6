import { createHmac, hash, hkdfSync } from 'node:crypto';
import { isIPv4 } from 'node:net';

/** HMAC-SHA256 pads of one project key (RFC 2104), computed once. */
interface ProjectKey {
  key: Buffer;
  innerPad: Buffer;
  outerPad: Buffer;
}

const BLOCK = 64;
const MAX_FAST_MESSAGE = 8192;

/**
 * Turns what a hit says about its sender into a 63-bit visitor number. The raw IP is
 * only ever an HMAC input: the key is derived per project from the instance secret, so
 * the numbers cannot be joined across projects, and without the secret an address
 * cannot be tested against them. 63 bits fit a signed 64-bit column in both databases;
 * two of a million visitors share a number with probability about 5e-8.
 */
export class VisitorIdentity {
  private readonly keys = new Map<string, ProjectKey>();
  // Reused for every hash: this runs once per ingested hit, and allocating the HMAC
  // object and its result buffers costs more than the hashing itself.
  private readonly inner = Buffer.alloc(BLOCK + MAX_FAST_MESSAGE);
  private readonly outer = Buffer.alloc(BLOCK + 32);

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

  /**
   * The beacon's sender on a UTC day: a keyed hash of the client address alone, stored by
   * the new-visitor cap instead of the address. The day is mixed in so that stored rows
   * of different days cannot be joined; the NUL prefix keeps it apart from visitor numbers.
   */
  beaconSender(projectId: string, ip: string, day: number): bigint {
    return this.digest(projectId, `\u0000sender\n${normaliseAddress(ip)}\n${day}`);
  }

  /**
   * One (address, user agent) pair on a UTC day, as the new-visitor cap counts it. Not the
   * visitor number itself, so the cap's rows cannot be joined to the stored hits to learn
   * which visitors shared an address.
   */
  beaconVisitor(projectId: string, ip: string, userAgent: string, day: number): bigint {
    return this.digest(projectId, `\u0000beacon\n${normaliseAddress(ip)}\n${userAgent}\n${day}`);
  }

  /**
   * Whom the beacon's rate limit counts: a client key (an IPv4 address or an IPv6 /64, see
   * `clientKey`), hashed so the counters shared in the database hold no address.
   */
  rateSubject(projectId: string, clientKey: string): bigint {
    return this.digest(projectId, `\u0000rate\n${clientKey}`);
  }

  /** The first 63 bits of HMAC-SHA256(project key, data). */
  private digest(projectId: string, data: string): bigint {
    const key = this.keyFor(projectId);
    if (data.length * 3 > MAX_FAST_MESSAGE) return createHmac('sha256', key.key).update(data).digest().readBigUInt64BE(0) >> 1n;
    key.innerPad.copy(this.inner, 0);
    const length = this.inner.write(data, BLOCK, 'utf8');
    key.outerPad.copy(this.outer, 0);
    this.outer.write(hash('sha256', this.inner.subarray(0, BLOCK + length), 'hex'), BLOCK, 'hex');
    return BigInt(`0x${hash('sha256', this.outer, 'hex').slice(0, 16)}`) >> 1n;
  }

  private keyFor(projectId: string): ProjectKey {
    let key = this.keys.get(projectId);
    if (key === undefined) {
      const secret = Buffer.from(hkdfSync('sha256', this.secret, 'docwright/analytics/visitor', projectId, 32));
      const innerPad = Buffer.alloc(BLOCK, 0x36);
      const outerPad = Buffer.alloc(BLOCK, 0x5c);
      for (let index = 0; index < secret.length; index++) {
        innerPad[index]! ^= secret[index]!;
        outerPad[index]! ^= secret[index]!;
      }
      key = { key: secret, innerPad, outerPad };
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
