import { sql, type ExpressionBuilder, type QueryCreator } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';
import type { Executor } from '../db/transaction.js';

/**
 * The queries behind a fair claim (job-queue.ts): which projects are next, and how many
 * leases a project holds. A lease is live while `locked_until >= now`; a lapsed one (its
 * worker died or paused past it) no longer counts, and its row is claimable again. They
 * read only the queue, whose rows carry their job's project (migration 026).
 */

/** A row no live lease holds: free, or its lease lapsed. */
export const leaseFree = (now: number) => (eb: ExpressionBuilder<DatabaseSchema, 'job_queue'>) =>
  eb.or([eb('job_queue.locked_until', 'is', null), eb('job_queue.locked_until', '<', now)]);

/** Live leases per project, as a table `(project_id, leases)`. */
export function liveLeases(executor: QueryCreator<DatabaseSchema>, now: number) {
  return executor
    .selectFrom('job_queue')
    .select(['job_queue.project_id', (eb) => eb.fn.countAll<number>().as('leases')])
    .where('job_queue.locked_until', '>=', now)
    .groupBy('job_queue.project_id');
}

/**
 * Up to `limit` projects with ready work and fewer than `perProject` live leases (any number
 * when it is undefined), in claim order: the project whose last claim is the oldest first
 * (never claimed counts as oldest; lease tokens start at 1), then the one whose oldest ready
 * job is the oldest. So a project that just had a job claimed goes behind every other
 * project with work, whatever its backlog.
 */
export async function nextProjects(executor: Executor, now: number, perProject: number | undefined, limit: number): Promise<string[]> {
  const rows = await nextProjectsQuery(executor, now, perProject, limit).execute();
  return rows.map((row) => row.project_id);
}

/** nextProjects' query, unrun (so its plan can be read). */
export function nextProjectsQuery(executor: Executor, now: number, perProject: number | undefined, limit: number) {
  return executor
    .with('live', (db) => liveLeases(db, now))
    .selectFrom('job_queue')
    .leftJoin('project_job_claims', 'project_job_claims.project_id', 'job_queue.project_id')
    .leftJoin('live', 'live.project_id', 'job_queue.project_id')
    .select('job_queue.project_id')
    .where('job_queue.run_at', '<=', now)
    .where(leaseFree(now))
    .$if(perProject !== undefined, (query) => query.where(sql<number>`coalesce(live.leases, 0)`, '<', perProject!))
    .groupBy(['job_queue.project_id', 'project_job_claims.last_token'])
    .orderBy(sql`coalesce(project_job_claims.last_token, 0)`)
    .orderBy(sql`min(job_queue.run_at)`)
    .orderBy('job_queue.project_id')
    .limit(limit);
}

/**
 * The project's oldest ready row, if the project holds fewer than `perProject` live leases.
 * Run after the project's claim lock (PostgreSQL) or inside BEGIN IMMEDIATE (SQLite), as its
 * own statement, so the count sees every claim committed before.
 */
export function oldestReadyOf(executor: Executor, projectId: string, now: number, perProject: number | undefined) {
  return executor
    .selectFrom('job_queue')
    .select('job_queue.job_id')
    .where('job_queue.project_id', '=', projectId)
    .where('job_queue.run_at', '<=', now)
    .where(leaseFree(now))
    .$if(perProject !== undefined, (query) =>
      query.where(
        (eb) =>
          eb
            .selectFrom('job_queue as held')
            .select((inner) => inner.fn.countAll<number>().as('leases'))
            .where('held.project_id', '=', projectId)
            .where('held.locked_until', '>=', now),
        '<',
        perProject!,
      ),
    )
    .orderBy('job_queue.run_at', 'asc')
    .limit(1);
}
