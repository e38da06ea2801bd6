import type { Clock } from '../../core/clock.js';
import type { Database } from '../../db/database.js';
import { lockKey, writeTransaction } from '../../db/transaction.js';
import type { Forge, ForgeProject, ForgeRemote, PullRequestRequest, PullRequestResult } from './forge.js';

export interface LocalPullRequest {
  projectId: string;
  number: number;
  title: string;
  body: string;
  base: string;
  head: string;
  state: 'open' | 'closed' | 'merged';
  createdAt: string;
  updatedAt: string;
}

export function localPullRequestUrl(publicUrl: string, projectId: string, number: number): string {
  return `${publicUrl}/projects/${encodeURIComponent(projectId)}/pulls/${number}`;
}

/**
 * The built-in forge: the project's repository is a git repository on this machine, the
 * job's branch is pushed into it, and pull requests live in Docwright's own store, shown
 * at `${DOCWRIGHT_PUBLIC_URL}/projects/{projectId}/pulls/{number}`.
 */
export class LocalForge implements Forge {
  readonly kind = 'local' as const;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly publicUrl: string,
  ) {}

  async remote(project: ForgeProject): Promise<ForgeRemote> {
    return { url: project.repository, auth: null };
  }

  /** One pull request per (project, head) branch, ever: a second call updates it. */
  async openOrUpdatePullRequest(project: ForgeProject, pr: PullRequestRequest): Promise<PullRequestResult> {
    const number = await writeTransaction(this.database, async (executor) => {
      await lockKey(this.database, executor, `local-pulls:${project.id}`);
      const now = this.clock.now();
      const existing = await executor
        .selectFrom('local_pull_requests')
        .select('number')
        .where('project_id', '=', project.id)
        .where('head', '=', pr.head)
        .executeTakeFirst();
      if (existing) {
        await executor
          .updateTable('local_pull_requests')
          .set({ title: pr.title, body: pr.body, base: pr.base, updated_at: now })
          .where('project_id', '=', project.id)
          .where('number', '=', existing.number)
          .execute();
        return { number: existing.number, created: false };
      }
      const last = await executor
        .selectFrom('local_pull_requests')
        .select(({ fn }) => fn.max('number').as('number'))
        .where('project_id', '=', project.id)
        .executeTakeFirst();
      const next = Number(last?.number ?? 0) + 1;
      await executor
        .insertInto('local_pull_requests')
        .values({ project_id: project.id, number: next, title: pr.title, body: pr.body, base: pr.base, head: pr.head, state: 'open', created_at: now, updated_at: now })
        .execute();
      return { number: next, created: true };
    });
    return { ...number, url: localPullRequestUrl(this.publicUrl, project.id, number.number) };
  }

  async find(projectId: string, number: number): Promise<LocalPullRequest | null> {
    const row = await this.database.db
      .selectFrom('local_pull_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('number', '=', number)
      .executeTakeFirst();
    if (!row) return null;
    return {
      projectId: row.project_id,
      number: row.number,
      title: row.title,
      body: row.body,
      base: row.base,
      head: row.head,
      state: row.state as LocalPullRequest['state'],
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  async list(projectId: string): Promise<LocalPullRequest[]> {
    const rows = await this.database.db.selectFrom('local_pull_requests').select('number').where('project_id', '=', projectId).orderBy('number', 'desc').limit(200).execute();
    const found = await Promise.all(rows.map((row) => this.find(projectId, row.number)));
    return found.filter((pr): pr is LocalPullRequest => pr !== null);
  }
}
