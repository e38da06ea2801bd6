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
/** The shortest sleep between rounds: a due message another worker is claiming right now is not polled for in a tight loop. */
const MIN_SLEEP_MS = 50;

/**
 * Sends the outbox's due messages, in every process that runs a worker. Each message is
 * claimed with a lease longer than a delivery can take, so no two processes send it at
 * once; one that dies mid-delivery leaves the claim to expire and the message is sent
 * again (at least once, the same `webhook-id`).
 */
export class WebhookDeliveryWorker {
  readonly workerId = `${hostname()}:${process.pid}:wh:${randomBase62(6)}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** A wake-up came during a round: the next round starts as soon as this one ends. */
  private wokenDuringRound = false;
  private unsubscribe: (() => void) | null = null;
  private lastPrune = 0;

  constructor(private readonly options: WebhookDeliveryOptions) {}

  /** A claim outlives the longest delivery by far, so it never lapses while a send is under way. */
  get leaseMs(): number {
    return this.options.limits.timeoutMs * 2 + 30_000;
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe ??= this.options.notifier?.subscribe('docwright_webhooks', () => this.wake()) ?? null;
    this.schedule(0);
  }

  /** What the worker does: `sleeping` between rounds, `delivering` during one. */
  get state(): 'stopped' | 'delivering' | 'sleeping' {
    if (this.stopped || (this.timer === null && this.running === null)) return 'stopped';
    return this.running === null ? 'sleeping' : 'delivering';
  }

  /** Starts a round now (or right after the one under way): messages became due. */
  wake(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.wokenDuringRound = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  /** Stops polling and waits for the deliveries under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Delivers every due message (up to `concurrency` at a time) until none is left; the number sent. */
  async deliverDue(): Promise<number> {
    let sent = 0;
    const lane = async () => {
      for (;;) {
        const claim = await this.options.outbox.claim(this.workerId, this.leaseMs);
        if (claim === null) return;
        await this.deliver(claim);
        sent += 1;
        if (this.stopped) return;
      }
    };
    await Promise.all(Array.from({ length: this.options.concurrency }, lane));
    return sent;
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

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wokenDuringRound = false;
      this.running = this.tick().then((sleepMs) => {
        this.running = null;
        this.schedule(this.wokenDuringRound ? 0 : sleepMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** One round: every due message, the hourly prune; then how long to sleep (until the next message is due, at most the safety poll). */
  private async tick(): Promise<number> {
    const { clock, outbox, pollMs } = this.options;
    try {
      await this.deliverDue();
      if (clock.now() - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = clock.now();
        await outbox.prune(this.options.retentionMs);
      }
      const due = await outbox.nextDueAt();
      return due === null ? pollMs : Math.min(pollMs, Math.max(MIN_SLEEP_MS, due - clock.now()));
    } catch (error) {
      this.options.logger.warn({ err: error }, 'webhook delivery round failed; trying again at the next poll');
      return pollMs;
    }
  }
}
