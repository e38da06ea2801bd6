import type { Clock } from '../core/clock.js';
import type { Database } from '../db/database.js';
import type { JobsTable } from '../db/schema.js';
import { jobFromRow, type Job } from './job.js';

export interface RecentJobChangesOptions {
  /** How far back a read looks: longer than any write transaction, and than clock skew between processes. */
  lookbackMs: number;
  /** Rows one read looks at, newest first: a bound on the query and on what is remembered. */
  maxRows: number;
}

export const DEFAULT_RECENT_JOB_CHANGES: RecentJobChangesOptions = { lookbackMs: 60_000, maxRows: 200 };

/** What the project stream reports a change of; a new `updated_at` covers the rest. */
const fingerprint = (row: JobsTable): string => `${row.status}|${row.pr_status ?? ''}|${row.pr_number ?? ''}|${row.error_code ?? ''}|${row.updated_at}`;

/**
 * The jobs of one project that changed since the last read, for one event stream. Every
 * change of a job's row moves its `updated_at`, so a read looks at the jobs updated in the
 * last `lookbackMs` and reports those whose status, pull request or update time differ
 * from what this reader saw before. The look-back, not a cursor, is what makes it exact
 * across processes: a row committed late (PostgreSQL commits out of order) or stamped by a
 * process whose clock is a little behind is still inside the window on the next read.
 * Memory is bounded by `maxRows` per reader; a job that leaves the window is forgotten.
 */
export class RecentJobChanges {
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly projectId: string,
    private readonly options: RecentJobChangesOptions = DEFAULT_RECENT_JOB_CHANGES,
  ) {}

  /** Oldest change first. The first read reports every job changed within the window. */
  async read(): Promise<Job[]> {
    const rows = await this.database.db
      .selectFrom('jobs')
      .selectAll()
      .where('project_id', '=', this.projectId)
      .where('updated_at', '>=', this.clock.now() - this.options.lookbackMs)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(this.options.maxRows)
      .execute();
    const changed: Job[] = [];
    const present = new Set<string>();
    for (const row of rows.reverse()) {
      present.add(row.id);
      const mark = fingerprint(row);
      if (this.seen.get(row.id) === mark) continue;
      this.seen.set(row.id, mark);
      changed.push(jobFromRow(row));
    }
    for (const id of this.seen.keys()) if (!present.has(id)) this.seen.delete(id);
    return changed;
  }
}
