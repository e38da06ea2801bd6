import { EventEmitter } from 'node:events';
import pg from 'pg';
import { backoffDelayMs } from '../core/backoff.js';
import type { Database } from '../db/database.js';

/**
 * docwright_jobs: a job has work queued (payload: job id). docwright_job_events: a job has
 * new events (job id). docwright_job_control: a job was archived or cancelled (job id).
 * docwright_project_jobs: a job's row changed, i.e. what its project's job stream shows
 * (payload: project id). docwright_keys: API keys were revoked or deleted (see
 * KeyCacheCoherence). docwright_webhooks: webhook messages became due (recorded with a
 * change, or redelivered): wakes the delivery workers (no payload).
 */
export type Channel = 'docwright_jobs' | 'docwright_job_events' | 'docwright_job_control' | 'docwright_project_jobs' | 'docwright_keys' | 'docwright_webhooks';
const CHANNELS: readonly Channel[] = [
  'docwright_jobs',
  'docwright_job_events',
  'docwright_job_control',
  'docwright_project_jobs',
  'docwright_keys',
  'docwright_webhooks',
];
/** Emitted (locally) whenever the LISTEN connection is established or lost. */
const LISTENER_CHANGED = Symbol('listener changed');

/** Reconnect delays of the LISTEN connection: about 0.5–1 s first, doubling, at most 15–30 s. */
const RECONNECT = { baseMs: 1_000, capMs: 30_000 };

/**
 * What the notifier logs through: pino's shape, declared here so queue/ needs nothing
 * from the HTTP layer.
 */
export interface NotifierLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

const silentLogger: NotifierLogger = { info: () => {}, warn: () => {} };

/**
 * The `application_name` of the LISTEN connection, with this process's id: operators (and
 * the tests) find it in pg_stat_activity, one per process.
 */
export const listenerApplicationName = (pid: number = process.pid): string => `docwright-listen:${pid}`;

/**
 * Wakes listeners when something happened: a job was queued, a job has new events, a job
 * was archived. In one process it is an event emitter; on PostgreSQL it also crosses
 * processes with LISTEN/NOTIFY. Notifications are hints only: the database stays the
 * truth, and listeners re-read it (with a slow fallback poll for SQLite across processes).
 */
export class Notifier {
  private readonly emitter = new EventEmitter();
  private listener: pg.Client | null = null;
  private closed = false;
  /** Ends the wait between reconnect attempts when the notifier closes. */
  private wakeSupervisor: (() => void) | null = null;
  private supervisor: Promise<void> = Promise.resolve();

  private constructor(
    private readonly database: Database,
    private readonly logger: NotifierLogger,
  ) {
    this.emitter.setMaxListeners(0);
  }

  /**
   * On PostgreSQL, waits for the first LISTEN connection (a start-up that cannot reach the
   * database fails loudly); every later loss is reconnected in the background, forever.
   */
  static async create(database: Database, options: { logger?: NotifierLogger } = {}): Promise<Notifier> {
    const notifier = new Notifier(database, options.logger ?? silentLogger);
    if (database.raw.dialect === 'postgres') {
      const url = database.raw.url;
      const { lost } = await notifier.connect(url);
      notifier.supervisor = notifier.supervise(url, lost);
    }
    return notifier;
  }

  get crossProcess(): boolean {
    return this.database.dialect === 'postgres';
  }

  /**
   * Keeps a LISTEN connection up until close(): after each loss it reconnects with capped,
   * jittered exponential backoff, logging every failed attempt, for as long as it takes.
   * Meanwhile the fallback polls of workers and streams find what notifications would have
   * announced. (The loop is ours, not a retry library's: those retry one call a bounded
   * number of times, while this supervises a connection that must come back after every
   * loss; the delay formula is core/backoff.ts.)
   */
  private async supervise(url: string, firstLoss: Promise<void>): Promise<void> {
    let lost = firstLoss;
    while (!this.closed) {
      await lost;
      let delayMs = backoffDelayMs(1, RECONNECT);
      // close() sets `closed` while this loop awaits, which narrowing cannot see.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      for (let attempt = 1; !this.closed; attempt++) {
        await this.pause(delayMs);
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by close() during the pause
        if (this.closed) return;
        try {
          ({ lost } = await this.connect(url));
          this.logger.info({ attempt }, 'LISTEN connection to PostgreSQL re-established');
          break;
        } catch (error) {
          delayMs = backoffDelayMs(attempt + 1, RECONNECT);
          this.logger.warn({ err: error, attempt, retryInMs: delayMs }, 'LISTEN connection to PostgreSQL failed; polling covers the gap until it is back');
        }
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSupervisor = done;
    });
  }

  /**
   * Opens a LISTEN connection; resolves once it listens on every channel, with a promise
   * that settles when that connection is lost (an error, or its end).
   */
  private async connect(url: string): Promise<{ lost: Promise<void> }> {
    const client = new pg.Client({
      connectionString: url,
      application_name: listenerApplicationName(),
      // A connect that hangs (a black-holed network) must fail, so the next attempt runs.
      connectionTimeoutMillis: 10_000,
      // The connection is idle between notifications: TCP keep-alives reveal a dead peer.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let markLost!: () => void;
    const lost = new Promise<void>((resolve) => (markLost = resolve));
    let up = false;
    const onLost = (error?: Error) => {
      if (this.listener === client) {
        this.listener = null;
        this.emitter.emit(LISTENER_CHANGED);
      }
      if (up && !this.closed) this.logger.warn({ err: error }, 'LISTEN connection to PostgreSQL lost; reconnecting');
      up = false;
      markLost();
    };
    client.on('notification', (message) => {
      if (CHANNELS.includes(message.channel as Channel)) this.emitter.emit(message.channel, message.payload ?? '');
    });
    client.on('error', (error) => {
      onLost(error);
      // A broken client is not reused; ending it frees its socket (errors again are ignored).
      void client.end().catch(() => {});
    });
    client.on('end', () => onLost());
    try {
      await client.connect();
      for (const channel of CHANNELS) await client.query(`listen ${channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return { lost };
    }
    up = true;
    this.listener = client;
    this.emitter.emit(LISTENER_CHANGED);
    // Wrapped: an async function would otherwise wait for the returned promise itself.
    return { lost };
  }

  /**
   * True when notifications from other processes reach this one: on PostgreSQL while the
   * LISTEN connection is up. (SQLite has no cross-process notifications at all.)
   */
  get listening(): boolean {
    return this.listener !== null;
  }

  /** Calls `handler` whenever the LISTEN connection comes up or goes down (notifications may have been missed). */
  onListenerChange(handler: () => void): () => void {
    this.emitter.on(LISTENER_CHANGED, handler);
    return () => this.emitter.off(LISTENER_CHANGED, handler);
  }

  /**
   * Publishes, and on PostgreSQL waits (at most `timeoutMs`) until this process's own
   * LISTEN connection has received it back, then `settleMs` more. PostgreSQL signals every
   * listening session at commit; the echo shows ours was served, and the settle time
   * covers the other sessions' delivery to their processes (same order of time, well
   * under a millisecond on one network). A caller that answers afterwards has made the
   * change known before its answer.
   */
  async publishAndConfirm(channel: Channel, payload: string, options: { timeoutMs?: number; settleMs?: number } = {}): Promise<void> {
    if (!this.listener) return this.publish(channel, payload);
    let unsubscribe = (): void => {};
    let timer: NodeJS.Timeout | undefined;
    const echoed = new Promise<void>((resolve) => {
      unsubscribe = this.subscribe(channel, (received) => received === payload && resolve());
      timer = setTimeout(resolve, options.timeoutMs ?? 2_000);
    });
    try {
      await this.publish(channel, payload);
      await echoed;
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
    await new Promise((resolve) => setTimeout(resolve, options.settleMs ?? 50));
  }

  /** Tells this process at once, and other processes through PostgreSQL. */
  async publish(channel: Channel, payload = ''): Promise<void> {
    if (this.database.raw.dialect === 'postgres') {
      await this.database.raw.pool.query('select pg_notify($1, $2)', [channel, payload]).catch(() => {
        // Another process may miss this hint; its fallback poll still finds the work.
      });
      // The local emit happens when our own LISTEN connection echoes the notification back;
      // without a listener connection, emit directly.
      if (this.listener) return;
    }
    this.emitter.emit(channel, payload);
  }

  subscribe(channel: Channel, handler: (payload: string) => void): () => void {
    this.emitter.on(channel, handler);
    return () => this.emitter.off(channel, handler);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeSupervisor?.();
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => {});
    await this.supervisor;
    this.emitter.removeAllListeners();
  }
}
