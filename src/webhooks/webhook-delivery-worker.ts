import { hostname } from 'node:os';
import type { Clock } from '../core/clock.js';
import { randomBase62 } from '../core/ids.js';
import type { Log } from '../core/log.js';
import type { Notifier } from '../queue/notifier.js';
import { sendWebhook, type WebhookLimits, type WebhookResponse, type WebhookTransport } from './webhook-http.js';
import type { WebhookNetworkPolicy } from './webhook-network-policy.js';
import type { ClaimedMessage, WebhookOutbox } from './webhook-outbox.js';
import { renderPayload } from './webhook-payload.js';
import type { WebhookService } from './webhook-service.js';
import { signWebhook } from './webhook-signature.js';

export interface WebhookDeliveryOptions {
  outbox: WebhookOutbox;
  endpoints: WebhookService;
  policy: WebhookNetworkPolicy;
  limits: WebhookLimits;
  /** The resolver and trusted CAs of the connections (tests resolve their own names). */
  transport?: WebhookTransport;
  clock: Clock;
  logger: Log;
  /** Read at each delivery: `serve` learns its own address only once it listens. */
  publicUrl: () => string;
  concurrency: number;
  /**
   * Wakes the worker when messages become due (`docwright_webhooks`: in-process at once,
   * across processes by PostgreSQL NOTIFY). Without it only the safety poll finds them.
   */
  notifier?: Pick<Notifier, 'subscribe'>;
  /** The safety poll: the longest an idle worker sleeps without a wake-up (lost notifications, other SQLite processes, expired claims). */
  pollMs: number;
  retentionMs: number;
}

const PRUNE_EVERY_MS = 3_600_000;
/** The shortest sleep when idle: a due message another worker is claiming right now is not polled for in a tight loop. */
const MIN_SLEEP_MS = 50;

/**
 * Sends the outbox's due messages, in every process that runs a worker. Each message is
 * claimed with a lease longer than a delivery can take, so no two processes send it at
 * once; one that dies mid-delivery leaves the claim to expire and the message is sent
 * again (at least once, the same `webhook-id`).
 *
 * Slots, not rounds: up to `concurrency` deliveries are under way, and as soon as one
 * ends (or a wake-up comes) the freed slot claims the next eligible message. A hanging
 * receiver holds its own slot until the timeout, never the others (the claim's fairness
 * rules are in WebhookOutbox.claim).
 */
export class WebhookDeliveryWorker {
  readonly workerId = `${hostname()}:${process.pid}:wh:${randomBase62(6)}`;
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;
  private readonly underWay = new Set<Promise<void>>();
  /** The claim loop under way: claims are taken one after another, never side by side. */
  private filling: Promise<void> | null = null;
  /** A wake-up or a freed slot came while claiming: claim again before going idle. */
  private fillAgain = false;
  private delivered = 0;
  private unsubscribe: (() => void) | null = null;
  private lastPrune = 0;

  constructor(private readonly options: WebhookDeliveryOptions) {}

  /** A claim outlives the longest delivery by far, so it never lapses while a send is under way. */
  get leaseMs(): number {
    return this.options.limits.timeoutMs * 2 + 30_000;
  }

  start(): void {
    this.started = true;
    this.stopped = false;
    this.unsubscribe ??= this.options.notifier?.subscribe('docwright_webhooks', () => this.wake()) ?? null;
    void this.fill();
  }

  /** What the worker does: `delivering` while a delivery or a claim is under way, else `sleeping` until a wake-up or the next due message. */
  get state(): 'stopped' | 'delivering' | 'sleeping' {
    if (this.stopped || !this.started) return 'stopped';
    return this.underWay.size > 0 || this.filling !== null ? 'delivering' : 'sleeping';
  }

  /** Messages became due: free slots claim them now. */
  wake(): void {
    if (this.started && !this.stopped) void this.fill();
  }

  /** Stops claiming and waits for the deliveries under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.filling;
    await Promise.all(this.underWay);
  }

  /** Delivers every due message (up to `concurrency` at a time) until none is left or under way; the number of attempts made. */
  async deliverDue(): Promise<number> {
    const before = this.delivered;
    await this.fill();
    while (this.underWay.size > 0 || this.filling !== null) {
      await Promise.race([...this.underWay, ...(this.filling === null ? [] : [this.filling])]);
    }
    return this.delivered - before;
  }

  /**
   * Claims into the free slots; one loop at a time. A call during it (a wake-up, a freed
   * slot) makes it run once more right after.
   */
  private fill(): Promise<void> {
    if (this.filling !== null) {
      this.fillAgain = true;
      return this.filling;
    }
    const filling = this.claimIntoFreeSlots().finally(() => {
      this.filling = null;
      if (this.fillAgain && !this.stopped) void this.fill();
    });
    this.filling = filling;
    return filling;
  }

  private async claimIntoFreeSlots(): Promise<void> {
    const { outbox, concurrency } = this.options;
    this.fillAgain = false;
    try {
      let idle = false;
      while (!this.stopped && this.underWay.size < concurrency) {
        const claim = await outbox.claim(this.workerId, this.leaseMs);
        if (claim === null) {
          idle = true;
          break;
        }
        this.launch(claim);
      }
      // Also when every slot stays busy (hanging receivers): pruning must not wait for an idle moment.
      if (this.options.clock.now() - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = this.options.clock.now();
        await outbox.prune(this.options.retentionMs);
      }
      if (idle) await this.sleepUntilDue();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'webhook claim failed; trying again at the next poll');
      this.sleep(this.options.pollMs);
    }
  }

  /** Sends one claimed message in a slot of its own; the slot, once free, claims the next. */
  private launch(claim: ClaimedMessage): void {
    const delivery: Promise<void> = this.deliver(claim)
      .then(
        () => undefined,
        (error: unknown) =>
          this.options.logger.warn({ err: error, messageId: claim.row.id }, 'webhook delivery failed; its claim runs out and it is sent again'),
      )
      .finally(() => {
        this.underWay.delete(delivery);
        this.delivered += 1;
        if (!this.stopped) void this.fill();
      });
    this.underWay.add(delivery);
  }

  /** Nothing left to claim: sleep until the next message is due (at most the safety poll). */
  private async sleepUntilDue(): Promise<void> {
    const { clock, outbox, pollMs } = this.options;
    const due = await outbox.nextDueAt();
    this.sleep(due === null ? pollMs : Math.min(pollMs, Math.max(MIN_SLEEP_MS, due - clock.now())));
  }

  /** Only a started worker polls; one driven by `deliverDue` does what it is asked and no more. */
  private sleep(delayMs: number): void {
    if (!this.started || this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.fill();
    }, delayMs);
    this.timer.unref();
  }

  /** One attempt of one claimed message; what happened is logged with the message. */
  async deliver(claim: ClaimedMessage): Promise<WebhookResponse> {
    const { endpoints, outbox, clock, policy, limits } = this.options;
    const startedAt = clock.now();
    const endpoint = await endpoints.signingSecrets(claim.row.endpoint_id);
    let result: WebhookResponse;
    if (!endpoint?.enabled) {
      result = { ok: false, status: null, body: null, errorCode: 'endpoint_disabled', errorMessage: 'The endpoint is disabled; nothing was sent.' };
    } else {
      const body = renderPayload(claim.row, this.options.publicUrl());
      // Standard Webhooks: the timestamp of this attempt, in seconds.
      const timestamp = Math.floor(clock.now() / 1000);
      result = await sendWebhook(
        {
          url: endpoint.url,
          body,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Docwright-Webhooks/1',
            'webhook-id': claim.row.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(endpoint.secrets, claim.row.id, timestamp, body),
          },
        },
        policy,
        limits,
        this.options.transport,
      );
    }
    const kept = await outbox.finish(claim, this.workerId, startedAt, result);
    const fields = { messageId: claim.row.id, endpointId: claim.row.endpoint_id, attempt: claim.attempt, status: result.status, error: result.errorCode };
    if (!kept) this.options.logger.warn(fields, 'webhook attempt logged, but its claim had passed to another worker');
    else if (!result.ok) this.options.logger.info(fields, 'webhook attempt failed');
    return result;
  }
}
