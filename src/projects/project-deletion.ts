import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { badRequest } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { writeTransaction } from '../db/transaction.js';
import type { ApiKeyService } from '../keys/api-key-service.js';
import type { Notifier } from '../queue/notifier.js';
import type { ProjectRepository } from './project-repository.js';

/**
 * Removes data another feature keeps for a project (analytics rows, say). Hooks run
 * before the project's own rows are deleted, while they can still find the project's
 * rows (analytics_sites maps it), and a failing hook stops the deletion with nothing of
 * the project's own removed: the deletion can be retried.
 */
export type ProjectDataRemover = (projectId: string) => Promise<void>;

export interface ProjectDeletionOptions {
  database: Database;
  projects: ProjectRepository;
  keys: ApiKeyService;
  notifier: Notifier;
  /** Where job clones live (`<data dir>/workspaces`). */
  workspacesDir: string;
  /** Registered by features that keep per-project data; see ProjectDataRemover. */
  removers: ProjectDataRemover[];
}

/**
 * Deletes a project and everything it owns: jobs with their turns, events and queue rows,
 * API keys, rate-limit and idempotency rows, local pull requests, what the removers
 * handle, and the job workspaces on disk. Running turns are stopped; the project's keys
 * are refused at once in every process.
 */
export class ProjectDeletion {
  constructor(private readonly options: ProjectDeletionOptions) {}

  /** `confirmName` must equal the project's name exactly (400 `confirmation_mismatch`). */
  async delete(projectId: string, confirmName: string): Promise<void> {
    const { database, projects, keys, notifier, removers } = this.options;
    const project = await projects.get(projectId);
    if (confirmName !== project.name) {
      throw badRequest('confirmation_mismatch', "confirmName must be exactly the project's name; nothing was deleted.");
    }
    // Keys first: no ingest key may add rows (analytics hits, jobs) while the removers run.
    await keys.revokeProject(projectId);
    for (const remove of removers) await remove(projectId);
    const jobs = await writeTransaction(database, async (executor) => {
      const jobs = await executor.selectFrom('jobs').select(['id', 'status']).where('project_id', '=', projectId).execute();
      const ids = jobs.map((job) => job.id);
      // Explicit rather than left to ON DELETE CASCADE, so nothing depends on a
      // connection's foreign_keys pragma; children first.
      if (ids.length > 0) {
        for (const table of ['job_events', 'job_turns', 'job_queue'] as const) await executor.deleteFrom(table).where('job_id', 'in', ids).execute();
      }
      await executor.deleteFrom('jobs').where('project_id', '=', projectId).execute();
      for (const table of [
        'api_keys',
        'rate_limit_hits',
        'idempotency_keys',
        'local_pull_requests',
        'legacy_forge_credentials',
        'project_usage_months',
        'project_job_claims',
      ] as const) {
        await executor.deleteFrom(table).where('project_id', '=', projectId).execute();
      }
      await executor.deleteFrom('projects').where('id', '=', projectId).execute();
      return jobs;
    });
    await keys.projectDeleted(projectId);
    // Stops turns running now, here and (PostgreSQL) in other processes; SQLite workers of
    // other processes stop at their next lease renewal, when the queue row is gone.
    for (const job of jobs) if (job.status === 'active') await notifier.publish('docwright_job_control', job.id);
    await this.removeWorkspaces(new Set(jobs.map((job) => job.id)));
  }

  /**
   * Workspaces are named `<jobId>-<turn>-<random>`; ids are 22 base62 characters, so a
   * prefix of one job's id never matches another job's directory.
   */
  private async removeWorkspaces(jobIds: ReadonlySet<string>): Promise<void> {
    if (jobIds.size === 0) return;
    const { workspacesDir } = this.options;
    let entries: string[];
    try {
      entries = await readdir(workspacesDir);
    } catch {
      return;
    }
    for (const entry of entries) {
      const jobId = entry.split('-')[0]!;
      if (jobIds.has(jobId)) await rm(join(workspacesDir, entry), { recursive: true, force: true });
    }
  }
}
