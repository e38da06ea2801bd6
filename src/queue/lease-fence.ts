import { DocwrightError, isDocwrightError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import type { Executor } from '../db/transaction.js';

/** The parts of a lease its writes are fenced with; see `Lease` in worker-pool.ts. */
export interface LeaseClaim {
  jobId: string;
  workerId: string;
  /** The fencing token the claim stored in the queue row; the next claim replaces it. */
  token: number;
}

/**
 * A write of a run whose lease has passed to another worker (or was released). The run
 * stops at once and writes nothing more; it is not a failure of the job, whose new owner
 * carries on, so it never reaches the job's `error` or its events.
 */
export class LeaseLostError extends DocwrightError {
  constructor(lease: LeaseClaim) {
    super('lease_lost', `The lease of job ${lease.jobId} (token ${lease.token}) has passed to another worker; this run stops without writing.`, {
      status: 409,
    });
    this.name = 'LeaseLostError';
  }
}

export function isLeaseLost(error: unknown): error is LeaseLostError {
  return isDocwrightError(error) && error.code === 'lease_lost';
}

/**
 * Refuses the transaction unless the job's queue row still carries this lease's token
 * (and worker). Call it first in the transaction of every write of a run:
 * - PostgreSQL: `SELECT … FOR UPDATE` locks the row until the transaction ends, so a claim
 *   (which skips locked rows) or a lease extension cannot change the token between this
 *   check and the commit, even under READ COMMITTED.
 * - SQLite: the transaction began with BEGIN IMMEDIATE and holds the database's write lock,
 *   so no claim can run before it commits.
 * Without an executor it checks once, outside any transaction: what a write to something
 * other than the database (a git push, a forge API call) can have, right before it.
 */
export async function holdLease(database: Database, lease: LeaseClaim, executor: Executor = database.db): Promise<void> {
  let query = executor
    .selectFrom('job_queue')
    .select('job_id')
    .where('job_id', '=', lease.jobId)
    .where('lease_token', '=', lease.token)
    .where('locked_by', '=', lease.workerId);
  if (database.dialect === 'postgres' && executor.isTransaction) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw new LeaseLostError(lease);
}

/**
 * Locks a job's queue row (PostgreSQL; a no-op on SQLite, whose BEGIN IMMEDIATE already
 * holds every row) in a transaction that goes on to change the job's turns. The lock order
 * of every job write is: the job's advisory lock (`lockKey`), then the queue row, then
 * turns and the job. A run's fenced write takes the queue row first (`holdLease`) and then
 * updates its turn, so a cancel or archive that updated the turns before touching the queue
 * row could deadlock with it (PostgreSQL aborts one side with 40P01).
 */
export async function lockQueueRow(database: Database, executor: Executor, jobId: string): Promise<void> {
  if (database.dialect !== 'postgres') return;
  await executor.selectFrom('job_queue').select('job_id').where('job_id', '=', jobId).forUpdate().execute();
}
