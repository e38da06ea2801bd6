import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import { notFound } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { prepareSqliteRead } from '../db/prepared-read.js';
import { createBatchedRead } from '../db/batched-read.js';
import type { DatabaseSchema, JobsTable } from '../db/schema.js';
import type { Executor } from '../db/transaction.js';
import type { Notifier } from '../queue/notifier.js';
import { JobRowCache } from './job-row-cache.js';
import { jobFromRow, turnFromRow, type Job, type JobStatus, type JobTurn } from './job.js';

/** Reads of jobs and their conversations; every read is scoped to the caller's project. */
export class JobRepository {
  private readonly db: Kysely<DatabaseSchema>;
  /** The poll operation's read: clients poll it in loops. */
  private readonly pollRead: (projectId: string, jobId: string) => Promise<JobsTable | undefined>;
  /** The API object of each row the poll read handed out; it hands out the same row while nothing changed. */
  private readonly pollJobs = new WeakMap<JobsTable, Job>();

  /**
   * `coherence` (the process's notifier and clock) lets the PostgreSQL poll read answer from
   * memory (JobRowCache); without it every PostgreSQL poll reads the store.
   */
  constructor(database: Database, coherence?: { notifier: Notifier; clock: Clock }) {
    this.db = database.db;
    this.pollRead = JobRepository.pollReader(database, coherence);
  }

  /**
   * SQLite: a statement compiled once that answers from memory while the file is unchanged.
   * PostgreSQL: rows kept in memory while no notification says they changed; on a miss,
   * polls arriving together share one query.
   */
  private static pollReader(
    database: Database,
    coherence: { notifier: Notifier; clock: Clock } | undefined,
  ): (projectId: string, jobId: string) => Promise<JobsTable | undefined> {
    const raw = database.raw;
    if (raw.dialect === 'postgres') {
      const read = createBatchedRead<JobsTable>(
        async (ids) =>
          (await raw.pool.query<JobsTable>({ name: 'docwright_jobs_by_ids', text: 'select * from jobs where id = any($1::text[])', values: [ids] })).rows,
        (row) => row.id,
      );
      if (coherence !== undefined) {
        const cache = new JobRowCache(read, coherence.notifier, coherence.clock);
        return (projectId, jobId) => cache.read(projectId, jobId);
      }
      return async (projectId, jobId) => {
        const row = await read(jobId);
        return row?.project_id === projectId ? row : undefined;
      };
    }
    // Placeholder values; the read replaces them in order: id, then project.
    const read = prepareSqliteRead<JobsTable>(database, database.db.selectFrom('jobs').selectAll().where('id', '=', '').where('project_id', '=', '').compile());
    return (projectId, jobId) => read.first([jobId, projectId]);
  }

  async findRow(executor: Executor, projectId: string, jobId: string): Promise<JobsTable | undefined> {
    return executor.selectFrom('jobs').selectAll().where('id', '=', jobId).where('project_id', '=', projectId).executeTakeFirst();
  }

  async getRow(executor: Executor, projectId: string, jobId: string): Promise<JobsTable> {
    const row = await this.findRow(executor, projectId, jobId);
    if (!row) throw notFound(`No job with id "${jobId}" in this project.`);
    return row;
  }

  async get(projectId: string, jobId: string): Promise<Job> {
    const row = await this.pollRead(projectId, jobId);
    if (!row) throw notFound(`No job with id "${jobId}" in this project.`);
    let job = this.pollJobs.get(row);
    if (job === undefined) {
      const fresh = jobFromRow(row);
      // Shared between requests: frozen throughout, so no caller can change another's answer.
      job = Object.freeze({
        ...fresh,
        source: Object.freeze(fresh.source),
        error: fresh.error === null ? null : Object.freeze(fresh.error),
        usage: Object.freeze(fresh.usage),
      });
      this.pollJobs.set(row, job);
    }
    return job;
  }

  /** Newest first; one extra row tells whether there are more. */
  async list(projectId: string, options: { status?: JobStatus; limit: number; offset: number }): Promise<{ jobs: Job[]; hasMore: boolean }> {
    let query = this.db.selectFrom('jobs').selectAll().where('project_id', '=', projectId);
    if (options.status) query = query.where('status', '=', options.status);
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit + 1)
      .offset(options.offset)
      .execute();
    return { jobs: rows.slice(0, options.limit).map(jobFromRow), hasMore: rows.length > options.limit };
  }

  async turns(projectId: string, jobId: string): Promise<JobTurn[]> {
    await this.getRow(this.db, projectId, jobId);
    const rows = await this.db.selectFrom('job_turns').selectAll().where('job_id', '=', jobId).orderBy('sequence', 'asc').execute();
    return rows.map(turnFromRow);
  }
}
