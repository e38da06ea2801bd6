import { sql } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Database } from '../db/database.js';
import { writeTransaction, type Executor } from '../db/transaction.js';
import type { LeaseClaim } from './lease-fence.js';

/** What a claim hands the worker: the job, and the fencing token its run's writes must carry. */
export interface ClaimedJob {
  jobId: string;
  token: number;
}

/**
 * The durable queue: one `job_queue` row per job that has turns to run. A worker claims
 * a row by writing its id, a lease expiry and a new fencing token into it; while it works
 * it keeps extending the lease. A worker that dies stops extending, the lease expires, and
 * the next claim takes the row over with a new token — that is how a crashed run is
 * retried, and why the old run's late writes are refused (lease-fence.ts).
 */
export class JobQueue {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Atomically takes the oldest ready row whose lease is free or expired; its job id and new token, or null. */
  async claim(workerId: string, leaseMs: number): Promise<ClaimedJob | null> {
    const now = this.clock.now();
    const ready = (executor: Executor) =>
      executor
        .selectFrom('job_queue')
        .select('job_id')
        .where('run_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('run_at', 'asc')
        .limit(1);
    const take = (executor: Executor, candidate: ReturnType<typeof ready>, token: ReturnType<typeof sql<number>>) =>
      executor
        .updateTable('job_queue')
        .set({ locked_by: workerId, locked_until: now + leaseMs, lease_token: token })
        .where('job_id', '=', (eb) => eb.selectFrom(candidate.as('candidate')).select('candidate.job_id'))
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .returning(['job_id', 'lease_token'])
        .executeTakeFirst();
    if (this.database.dialect === 'postgres') {
      // One statement: SKIP LOCKED lets concurrent claimers pass each other, and nextval
      // runs only for the row taken.
      const { db } = this.database;
      const row = await take(db, ready(db).forUpdate().skipLocked(), sql<number>`nextval('job_lease_tokens')`);
      return row ? { jobId: row.job_id, token: Number(row.lease_token) } : null;
    }
    // SQLite: BEGIN IMMEDIATE holds the write lock across the claim and the counter's update.
    // An idle claim changes no row, so it writes nothing (no WAL frame, no data_version move).
    return writeTransaction(this.database, async (executor) => {
      const row = await take(executor, ready(executor), sql<number>`(select last_token + 1 from job_lease_tokens where id = 1)`);
      if (!row) return null;
      await executor.updateTable('job_lease_tokens').set({ last_token: row.lease_token }).where('id', '=', 1).execute();
      return { jobId: row.job_id, token: Number(row.lease_token) };
    });
  }

  /** Extends a held lease; false when the lease was lost (taken over with a new token, released, or the row is gone). */
  async extendLease(lease: LeaseClaim, leaseMs: number): Promise<boolean> {
    const result = await this.database.db
      .updateTable('job_queue')
      .set({ locked_until: this.clock.now() + leaseMs })
      .where('job_id', '=', lease.jobId)
      .where('lease_token', '=', lease.token)
      .where('locked_by', '=', lease.workerId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Gives the row back to be run again at `runAt` (a retry with backoff, or a shutdown).
   * Call it after `holdLease` in the same transaction; releasing ends the token.
   */
  async release(executor: Executor, lease: LeaseClaim, runAt: number): Promise<void> {
    await executor
      .updateTable('job_queue')
      .set({ locked_by: null, locked_until: null, run_at: runAt })
      .where('job_id', '=', lease.jobId)
      .where('lease_token', '=', lease.token)
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
      // min() over no rows is null.
      .select(sql<number | null>`min(case when locked_until is not null and locked_until > run_at then locked_until else run_at end)`.as('next'))
      .executeTakeFirst();
    const next = row?.next;
    return next === null || next === undefined ? null : Math.max(0, Number(next) - now);
  }

  /**
   * Which of these jobs still have a queue row; a job whose row is gone (cancelled, project
   * deleted) is missing. One indexed read: the worker's control poll, which learns of a
   * cancel made by another process.
   */
  async queuedJobIds(jobIds: readonly string[]): Promise<Set<string>> {
    if (jobIds.length === 0) return new Set();
    const rows = await this.database.db.selectFrom('job_queue').select('job_id').where('job_id', 'in', jobIds).execute();
    return new Set(rows.map((row) => row.job_id));
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
