import { sql } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Database } from '../db/database.js';
import type { Executor } from '../db/transaction.js';

/**
 * The durable queue: one `job_queue` row per job that has turns to run. A worker claims
 * a row by writing its id and a lease expiry into it; while it works it keeps extending
 * the lease. A worker that dies stops extending, the lease expires, and the next claim
 * takes the row over — that is how a crashed run is retried.
 */
export class JobQueue {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Atomically takes the oldest ready row whose lease is free or expired; its job id, or null. */
  async claim(workerId: string, leaseMs: number): Promise<string | null> {
    const now = this.clock.now();
    const { db } = this.database;
    const ready = (executor: Executor) =>
      executor
        .selectFrom('job_queue')
        .select('job_id')
        .where('run_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('run_at', 'asc')
        .limit(1);
    // One statement: on PostgreSQL SKIP LOCKED lets concurrent claimers pass each other;
    // on SQLite the statement runs under the database's write lock.
    const candidate = this.database.dialect === 'postgres' ? ready(db).forUpdate().skipLocked() : ready(db);
    const row = await db
      .updateTable('job_queue')
      .set({ locked_by: workerId, locked_until: now + leaseMs })
      .where('job_id', '=', (eb) => eb.selectFrom(candidate.as('candidate')).select('candidate.job_id'))
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .returning('job_id')
      .executeTakeFirst();
    return row?.job_id ?? null;
  }

  /** Extends a held lease; false when the lease was lost (expired and taken, or the row is gone). */
  async extendLease(jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
    const result = await this.database.db
      .updateTable('job_queue')
      .set({ locked_until: this.clock.now() + leaseMs })
      .where('job_id', '=', jobId)
      .where('locked_by', '=', workerId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Gives the row back to be run again at `runAt` (a retry with backoff, or a shutdown). */
  async release(executor: Executor, jobId: string, workerId: string, runAt: number): Promise<void> {
    await executor
      .updateTable('job_queue')
      .set({ locked_by: null, locked_until: null, run_at: runAt })
      .where('job_id', '=', jobId)
      .where('locked_by', '=', workerId)
      .execute();
  }

  async remove(executor: Executor, jobId: string): Promise<void> {
    await executor.deleteFrom('job_queue').where('job_id', '=', jobId).execute();
  }

  /** How long until the next row becomes ready, for the worker's fallback timer; null when empty. */
  async nextReadyInMs(): Promise<number | null> {
    const now = this.clock.now();
    const row = await this.database.db
      .selectFrom('job_queue')
      .select(sql<number>`min(case when locked_until is not null and locked_until > run_at then locked_until else run_at end)`.as('next'))
      .executeTakeFirst();
    const next = row?.next;
    return next === null || next === undefined ? null : Math.max(0, Number(next) - now);
  }

  /**
   * Jobs whose lease runs until after `since`: their workspaces may be in use. Pass a time
   * before now (now minus a lease) to also count leases a slow renewal let lapse a moment ago.
   */
  async leasedJobIds(since: number): Promise<Set<string>> {
    const rows = await this.database.db.selectFrom('job_queue').select('job_id').where('locked_until', '>', since).execute();
    return new Set(rows.map((row) => row.job_id));
  }
}
