import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Database } from '../db/database.js';

/**
 * docwright_jobs: a job has work queued (payload: job id). docwright_job_events: a job has
 * new events (job id). docwright_job_control: a job was archived (job id).
 * docwright_project_jobs: a job's row changed, i.e. what its project's job stream shows
 * (payload: project id). docwright_keys: API keys were revoked or deleted (see
 * KeyCacheCoherence).
 */
export type Channel = 'docwright_jobs' | 'docwright_job_events' | 'docwright_job_control' | 'docwright_project_jobs' | 'docwright_keys';
const CHANNELS: readonly Channel[] = ['docwright_jobs', 'docwright_job_events', 'docwright_job_control', 'docwright_project_jobs', 'docwright_keys'];
/** Emitted (locally) whenever the LISTEN connection is established or lost. */
const LISTENER_CHANGED = Symbol('listener changed');

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

  private constructor(private readonly database: Database) {
    this.emitter.setMaxListeners(0);
  }

  static async create(database: Database): Promise<Notifier> {
    const notifier = new Notifier(database);
    if (database.raw.dialect === 'postgres') await notifier.listen(database.raw.url);
    return notifier;
  }

  get crossProcess(): boolean {
    return this.database.dialect === 'postgres';
  }

  private async listen(url: string): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    client.on('notification', (message) => {
      if (CHANNELS.includes(message.channel as Channel)) this.emitter.emit(message.channel, message.payload ?? '');
    });
    // A dropped listener connection is replaced; until then the fallback polls cover the gap.
    client.on('error', () => {
      if (this.closed) return;
      this.listener = null;
      this.emitter.emit(LISTENER_CHANGED);
      setTimeout(() => void this.listen(url).catch(() => {}), 1_000).unref();
    });
    await client.connect();
    for (const channel of CHANNELS) await client.query(`listen ${channel}`);
    this.listener = client;
    this.emitter.emit(LISTENER_CHANGED);
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
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => {});
    this.emitter.removeAllListeners();
  }
}
