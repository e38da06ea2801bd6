import { sql, type RawBuilder } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Database } from '../db/database.js';
import { writeTransaction, type Executor } from '../db/transaction.js';
import { leaseFree, liveLeases, nextProjects, oldestReadyOf } from './fair-order.js';
import type { LeaseClaim } from './lease-fence.js';

/** What a claim hands the worker: the job, and the fencing token its run's writes must carry. */
export interface ClaimedJob {
  jobId: string;
  token: number;
}

/**
 * How many projects one PostgreSQL claim tries, in fair order, when other claimers hold the
 * first ones' locks; a claim that finds them all held returns null and the worker asks again.
 */
const CANDIDATE_PROJECTS = 8;

/**
 * The advisory lock a claim holds while it counts and takes a project's leases (PostgreSQL).
 * Only the first project is waited for: claimers queue on it for a few milliseconds each,
 * and none of them waits while holding a lock, so claims cannot deadlock. Later projects are
 * only tried, and skipped when another claimer holds them.
 */
async function lockProject(executor: Executor, projectId: string, mode: 'wait' | 'try'): Promise<boolean> {
  const key = `job-claims:${projectId}`;
  if (mode === 'wait') {
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(executor);
    return true;
  }
  const result = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`.execute(executor);
  return result.rows[0]?.locked === true;
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

  /**
   * Atomically takes a ready row whose lease is free or expired, fairly across projects
   * (fair-order.ts): from the project whose last claim is the oldest among those with ready
   * work and fewer than `perProject` live leases, its oldest ready row. Its job id and new
   * token, or null. Without `perProject` a project may hold any number of leases.
   *
   * The cap is exact across processes. PostgreSQL: the claim takes the project's advisory
   * lock (lockProject), then counts and takes in the statement after it, whose snapshot
   * sees every claim of the project committed before.
   * SQLite: BEGIN IMMEDIATE makes every claim the only writer.
   */
  async claim(workerId: string, leaseMs: number, perProject?: number): Promise<ClaimedJob | null> {
    const now = this.clock.now();
    if (this.database.dialect === 'postgres') {
      // Read outside a transaction: an idle claim is one statement.
      const projects = await nextProjects(this.database.db, now, perProject, CANDIDATE_PROJECTS);
      if (projects.length === 0) return null;
      return writeTransaction(this.database, async (executor) => {
        for (const [index, projectId] of projects.entries()) {
          if (perProject !== undefined && !(await lockProject(executor, projectId, index === 0 ? 'wait' : 'try'))) continue;
          // SKIP LOCKED: a row a cancel or a paused run's fenced write holds is passed over.
          const candidate = oldestReadyOf(executor, projectId, now, perProject).forUpdate().skipLocked();
          const row = await this.take(executor, workerId, now, leaseMs, candidate, sql<number>`nextval('job_lease_tokens')`);
          if (row) return this.claimed(executor, projectId, row);
        }
        return null;
      });
    }
    // SQLite: BEGIN IMMEDIATE holds the write lock across the choice, the claim and the
    // counter's update. An idle claim changes no row, so it writes nothing (no WAL frame,
    // no data_version move).
    return writeTransaction(this.database, async (executor) => {
      const [projectId] = await nextProjects(executor, now, perProject, 1);
      if (projectId === undefined) return null;
      const candidate = oldestReadyOf(executor, projectId, now, perProject);
      const row = await this.take(executor, workerId, now, leaseMs, candidate, sql<number>`(select last_token + 1 from job_lease_tokens where id = 1)`);
      if (!row) return null;
      await executor.updateTable('job_lease_tokens').set({ last_token: row.lease_token }).where('id', '=', 1).execute();
      return this.claimed(executor, projectId, row);
    });
  }

  private take(executor: Executor, workerId: string, now: number, leaseMs: number, candidate: ReturnType<typeof oldestReadyOf>, token: RawBuilder<number>) {
    return executor
      .updateTable('job_queue')
      .set({ locked_by: workerId, locked_until: now + leaseMs, lease_token: token })
      .where('job_id', '=', (eb) => eb.selectFrom(candidate.as('candidate')).select('candidate.job_id'))
      .where(leaseFree(now))
      .returning(['job_id', 'lease_token'])
      .executeTakeFirst();
  }

  /** Records the claim as the project's latest (its place in the fair order). */
  private async claimed(executor: Executor, projectId: string, row: { job_id: string; lease_token: number }): Promise<ClaimedJob> {
    await executor
      .insertInto('project_job_claims')
      .values({ project_id: projectId, last_token: row.lease_token })
      .onConflict((conflict) => conflict.column('project_id').doUpdateSet({ last_token: row.lease_token }))
      .execute();
    return { jobId: row.job_id, token: Number(row.lease_token) };
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

  /**
   * How long until the next row becomes claimable, for the worker's fallback timer; null
   * when none will. With `perProject`, the queued rows of a project at its cap are left out
   * (a slot frees when a run ends, which wakes that worker, or at the idle poll): counting
   * them would have idle workers ask again every few milliseconds.
   */
  async nextReadyInMs(perProject?: number): Promise<number | null> {
    const now = this.clock.now();
    const row = await this.database.db
      .with('live', (db) => liveLeases(db, now))
      .selectFrom('job_queue')
      .leftJoin('live', 'live.project_id', 'job_queue.project_id')
      // min() over no rows is null.
      .select(sql<number | null>`min(case when locked_until is not null and locked_until > run_at then locked_until else run_at end)`.as('next'))
      .$if(perProject !== undefined, (query) =>
        query.where((eb) => eb.or([eb('job_queue.locked_until', '>=', now), eb(sql<number>`coalesce(live.leases, 0)`, '<', perProject!)])),
      )
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
