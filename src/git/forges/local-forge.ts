import type { Clock } from '../../core/clock.js';
import { conflict } from '../../core/errors.js';
import type { Database } from '../../db/database.js';
import type { LocalPullRequestsTable } from '../../db/schema.js';
import { lockKey, writeTransaction, type Executor } from '../../db/transaction.js';
import type { Forge, ForgeProject, ForgeRemote, PullRequestRequest, PullRequestResult, WriteFence } from './forge.js';
import { newShareToken, shareTokenMatches } from './local-share-token.js';

export interface LocalPullRequest {
  projectId: string;
  number: number;
  title: string;
  body: string;
  base: string;
  head: string;
  state: 'open' | 'closed' | 'merged';
  /** The merge commit a merge created; null unless merged (and when the base already contained the head). */
  mergeCommit: string | null;
  /** The commits a merge compared; null unless merged. */
  mergedBase: string | null;
  mergedHead: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The dashboard's page of the pull request; the token opens it (its data: src/pull-requests/). */
export function localPullRequestUrl(publicUrl: string, projectId: string, number: number, shareToken: string): string {
  return `${publicUrl}/projects/${encodeURIComponent(projectId)}/pulls/${number}?token=${encodeURIComponent(shareToken)}`;
}

/**
 * The built-in forge: the project's repository is a git repository on this machine, the
 * job's branch is pushed into it, and pull requests live in Docwright's own store, shown
 * by the dashboard at `${DOCWRIGHT_PUBLIC_URL}/projects/{projectId}/pulls/{number}?token={shareToken}`
 * and merged into the repository from there (src/pull-requests/).
 */
export class LocalForge implements Forge {
  readonly kind = 'local' as const;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    /** A function when the address is known only once the server listens (start-server.ts). */
    private readonly publicUrl: string | (() => string),
  ) {}

  async remote(project: ForgeProject): Promise<ForgeRemote> {
    return { url: project.repository, auth: null };
  }

  /**
   * One pull request per (project, head) branch, ever: a second call updates it. A closed
   * one is reopened (a follow-up continues the work); a merged one refuses with 409
   * `pull_request_merged`, since its branch is part of the base and new commits on it would
   * have nothing to review them (JobService refuses such follow-ups up front). `fence` runs
   * in the same transaction, so a run whose lease has passed on changes nothing.
   */
  async openOrUpdatePullRequest(project: ForgeProject, pr: PullRequestRequest, fence?: WriteFence): Promise<PullRequestResult> {
    const opened = await writeTransaction(this.database, async (executor) => {
      await lockKey(this.database, executor, `local-pulls:${project.id}`);
      await fence?.(executor);
      const now = this.clock.now();
      const existing = await executor
        .selectFrom('local_pull_requests')
        .select(['number', 'share_token', 'state'])
        .where('project_id', '=', project.id)
        .where('head', '=', pr.head)
        .executeTakeFirst();
      if (existing) {
        if (existing.state === 'merged') {
          throw conflict(`Pull request #${existing.number} was merged; its branch takes no more changes. Create a new job instead.`, 'pull_request_merged');
        }
        await executor
          .updateTable('local_pull_requests')
          .set({ title: pr.title, body: pr.body, base: pr.base, state: 'open', updated_at: now })
          .where('project_id', '=', project.id)
          .where('number', '=', existing.number)
          .execute();
        // The same link as before: a follow-up or a retry must not invalidate it.
        return { number: existing.number, shareToken: existing.share_token, created: false };
      }
      const last = await executor
        .selectFrom('local_pull_requests')
        .select(({ fn }) => fn.max('number').as('number'))
        .where('project_id', '=', project.id)
        .executeTakeFirst();
      const next = Number(last?.number ?? 0) + 1;
      const shareToken = newShareToken();
      await executor
        .insertInto('local_pull_requests')
        .values({
          project_id: project.id,
          number: next,
          title: pr.title,
          body: pr.body,
          base: pr.base,
          head: pr.head,
          state: 'open',
          share_token: shareToken,
          merge_commit: null,
          merged_base: null,
          merged_head: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return { number: next, shareToken, created: true };
    });
    return {
      number: opened.number,
      created: opened.created,
      url: localPullRequestUrl(typeof this.publicUrl === 'string' ? this.publicUrl : this.publicUrl(), project.id, opened.number, opened.shareToken),
      status: 'open',
    };
  }

  async find(projectId: string, number: number): Promise<LocalPullRequest | null> {
    const row = await this.row(projectId, number);
    return row ? pullRequestFromRow(row) : null;
  }

  /**
   * The pull request if `token` is its share token, else null, whether the pull request
   * does not exist or the token is wrong or missing: one query and one constant-time
   * comparison either way, so neither the answer nor its timing tells the two apart.
   */
  async findShared(projectId: string, number: number, token: string | undefined): Promise<LocalPullRequest | null> {
    const row = await this.row(projectId, number);
    return shareTokenMatches(row?.share_token ?? null, token) && row ? pullRequestFromRow(row) : null;
  }

  /** The pull request as a transaction sees it (the merge and close decisions re-read it there). */
  async findIn(executor: Executor, projectId: string, number: number): Promise<LocalPullRequest | null> {
    const row = await this.row(projectId, number, executor);
    return row ? pullRequestFromRow(row) : null;
  }

  private row(projectId: string, number: number, executor: Executor = this.database.db): Promise<LocalPullRequestsTable | undefined> {
    return executor.selectFrom('local_pull_requests').selectAll().where('project_id', '=', projectId).where('number', '=', number).executeTakeFirst();
  }

  async list(projectId: string): Promise<LocalPullRequest[]> {
    const rows = await this.database.db
      .selectFrom('local_pull_requests')
      .select('number')
      .where('project_id', '=', projectId)
      .orderBy('number', 'desc')
      .limit(200)
      .execute();
    const found = await Promise.all(rows.map((row) => this.find(projectId, row.number)));
    return found.filter((pr): pr is LocalPullRequest => pr !== null);
  }
}

function pullRequestFromRow(row: LocalPullRequestsTable): LocalPullRequest {
  return {
    projectId: row.project_id,
    number: row.number,
    title: row.title,
    body: row.body,
    base: row.base,
    head: row.head,
    state: row.state as LocalPullRequest['state'],
    mergeCommit: row.merge_commit,
    mergedBase: row.merged_base,
    mergedHead: row.merged_head,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
