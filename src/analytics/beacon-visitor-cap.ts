import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import { dayOf } from './analytics-codes.js';
import type { BeaconSenderStore } from './beacon-sender-store.js';
import type { VisitorIdentity } from './visitor-identity.js';

export const DEFAULT_BEACON_VISITORS_PER_ADDRESS = 20;
/** Admitted pairs remembered per process; past this the memory starts over (the database stays the truth). */
const MAX_REMEMBERED = 100_000;
const MAX_FULL_SENDERS = 10_000;

export interface BeaconVisitorCapOptions {
  store: BeaconSenderStore;
  identity: VisitorIdentity;
  clock: Clock;
  /** New visitors (address + user agent pairs) one address may add per project and UTC day; 0 = no cap. */
  limit: number;
  logger: Pick<FastifyBaseLogger, 'info' | 'error'>;
}

/**
 * Caps how many new visitors one client address can add through the public beacon per
 * project and UTC day. A visitor is address + user agent, so without a cap one address
 * can make any number of "people" by varying its User-Agent header.
 *
 * The decision lives in the database (shared by every process, exact across them); memory
 * only saves round trips, and only with answers that cannot change within the day: a pair
 * once admitted stays admitted, and a sender at its limit has its final set of pairs.
 * So the database is asked once per pair per process per day, not once per beacon.
 */
export class BeaconVisitorCap {
  private day = -1;
  private admitted = new Set<string>();
  private full = new Map<string, Set<string>>();
  private cleaning: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: BeaconVisitorCapOptions) {}

  /** Whether a beacon from (ip, userAgent) counts; false when it would be a new visitor beyond the address's limit. */
  async admit(projectId: string, ip: string, userAgent: string): Promise<boolean> {
    const { limit, identity, store } = this.options;
    if (limit === 0) return true;
    const day = dayOf(this.options.clock.now());
    if (day !== this.day) this.turnDay(day);
    const visitor = identity.beaconVisitor(projectId, ip, userAgent, day).toString();
    const pairKey = `${projectId}\n${visitor}`;
    if (this.admitted.has(pairKey)) return true;
    const sender = identity.beaconSender(projectId, ip, day);
    const senderKey = `${projectId}\n${sender}`;
    const final = this.full.get(senderKey);
    if (final !== undefined) return final.has(visitor);

    const row = await store.admit(day, projectId, sender, visitor, limit);
    const counted = row.visitors.includes(visitor);
    // The day turned while we waited: the answer stands, but it is not today's to remember.
    if (day !== this.day) return counted;
    if (counted) {
      if (this.admitted.size >= MAX_REMEMBERED) this.admitted = new Set();
      this.admitted.add(pairKey);
    }
    if (row.identities >= limit) {
      if (this.full.size >= MAX_FULL_SENDERS) this.full = new Map();
      this.full.set(senderKey, new Set(row.visitors));
      // Once per address and day in this process: later refusals are answered from memory.
      if (!counted)
        this.options.logger.info(
          { projectId, limit },
          'an address reached the beacon limit of new visitors for today; its further new visitors are not counted',
        );
    }
    return counted;
  }

  /** Waits for a cleanup started by a turn of the day (tests, shutdown). */
  async settled(): Promise<void> {
    await this.cleaning;
  }

  /** A new UTC day: memory starts over, and rows before yesterday go (a process whose clock lags may still write yesterday's). */
  private turnDay(day: number): void {
    this.day = day;
    this.admitted = new Set();
    this.full = new Map();
    this.cleaning = this.cleaning
      .then(() => this.options.store.forgetBefore(day - 1))
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'deleting old beacon sender rows failed'));
  }
}
