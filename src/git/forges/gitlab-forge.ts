import { DocwrightError, isDocwrightError } from '../../core/errors.js';
import { validateRefName } from '../ref-name.js';
import {
  isAppCredentials,
  type Forge,
  type ForgeProject,
  type ForgeRemote,
  type PullRequestControls,
  type PullRequestRequest,
  type PullRequestResult,
  type WriteFence,
  withWarnings,
} from './forge.js';
import { forgeHttpError, forgeNotConfigured, forgeUnreachable } from './forge-errors.js';
import { forgeFetch } from './forge-fetch.js';
import { forgeGitUrl } from './forge-remote-url.js';
import { parseGitLabRepository, type GitLabRepository } from './gitlab-repository.js';
import {
  draftTitle,
  droppedReviewers,
  enableGitLabAutoMerge,
  isDraft,
  resolveReviewers,
  type AutoMergeTiming,
  type GitLabCall,
  type GitLabMergeRequest,
} from './gitlab-controls.js';

export { parseGitLabRepository, type GitLabRepository } from './gitlab-repository.js';

export interface GitLabForgeOptions {
  /** REST v4 root, e.g. `https://gitlab.example.com/api/v4` for self-managed GitLab. */
  apiBaseUrl?: string;
  /** Where repositories are cloned from: a URL, or a directory holding `GROUP/…/NAME.git`. */
  gitBaseUrl?: string;
  /** What project repository URLs must start with. */
  webBaseUrl?: string;
  requestTimeoutMs?: number;
  /** Tries of the merge endpoint while GitLab still checks a new merge request (autoMerge). */
  autoMerge?: AutoMergeTiming;
}

/** GitLab's limits for merge request titles and descriptions. */
const MAX_TITLE_LENGTH = 255;
const MAX_DESCRIPTION_LENGTH = 1_000_000;

type MergeRequest = GitLabMergeRequest;

class GitLabHttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`GitLab answered HTTP ${status}`);
  }
}

/** Merge requests on gitlab.com or self-managed GitLab, with a project or personal access token. */
export class GitLabForge implements Forge {
  readonly kind = 'gitlab' as const;
  private readonly apiBaseUrl: string;
  private readonly gitBaseUrl: string;
  private readonly webBaseUrl: string;
  private readonly requestTimeoutMs: number;
  private readonly autoMerge: AutoMergeTiming;
  private readonly fetch = forgeFetch('GitLab');

  constructor(options: GitLabForgeOptions = {}) {
    this.apiBaseUrl = (options.apiBaseUrl ?? 'https://gitlab.com/api/v4').replace(/\/+$/, '');
    this.gitBaseUrl = options.gitBaseUrl ?? 'https://gitlab.com';
    this.webBaseUrl = (options.webBaseUrl ?? 'https://gitlab.com').replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.autoMerge = options.autoMerge ?? { attempts: 5, delayMs: 1_000 };
  }

  parseRepository(repository: string): GitLabRepository {
    return parseGitLabRepository(repository, this.webBaseUrl);
  }

  async remote(project: ForgeProject): Promise<ForgeRemote> {
    const repository = this.parseRepository(project.repository);
    const token = this.token(project);
    return { url: forgeGitUrl(this.gitBaseUrl, repository.segments), auth: { username: 'oauth2', password: token } };
  }

  async openOrUpdatePullRequest(project: ForgeProject, pr: PullRequestRequest, fence?: WriteFence): Promise<PullRequestResult> {
    const repository = this.parseRepository(project.repository);
    const token = this.token(project);
    const base = validateRefName(pr.base, 'base');
    const head = validateRefName(pr.head, 'head');
    const title = clip(pr.title.trim() || `Docwright: ${head}`, MAX_TITLE_LENGTH);
    const description = clip(pr.body, MAX_DESCRIPTION_LENGTH);
    const projectPath = `/projects/${encodeURIComponent(repository.path)}`;
    const where = `merge requests of ${repository.path}`;

    const call: GitLabCall = (method, path, body, action) => this.request(token, method, path, body, action);
    const controls = pr.controls;

    const findOpen = async (): Promise<MergeRequest | null> => {
      const query = new URLSearchParams({ state: 'opened', source_branch: head, per_page: '100' });
      const found = await call<MergeRequest[]>('GET', `${projectPath}/merge_requests?${query.toString()}`, undefined, `looking up open ${where}`);
      return found.find((mergeRequest) => mergeRequest.source_branch === head) ?? null;
    };
    const update = async (existing: MergeRequest): Promise<PullRequestResult> => {
      // A draft's title carries GitLab's draft prefix: a new title keeps the merge request a draft.
      const wanted = isDraft(existing) ? draftTitle(title, MAX_TITLE_LENGTH) : title;
      if (existing.title !== wanted || (existing.description ?? '') !== description) {
        await call('PUT', `${projectPath}/merge_requests/${existing.iid}`, { title: wanted, description }, `updating !${existing.iid} of ${repository.path}`);
      }
      const result: PullRequestResult = { number: existing.iid, url: existing.web_url, created: false };
      // One the job has not recorded was opened by an attempt that died before it could: apply the controls.
      if (controls === undefined || existing.iid === pr.recordedNumber) return result;
      return withWarnings(result, await this.controlExisting(call, projectPath, existing, controls));
    };

    const existing = await findOpen();
    await fence?.();
    if (existing) return update(existing);
    const reviewers = controls?.reviewers === undefined ? { users: [], warnings: [] } : await resolveReviewers(call, controls.reviewers);
    let created: MergeRequest;
    try {
      created = await call<MergeRequest>(
        'POST',
        `${projectPath}/merge_requests`,
        {
          source_branch: head,
          target_branch: base,
          title: controls?.draft === true ? draftTitle(title, MAX_TITLE_LENGTH) : title,
          description,
          ...(controls?.labels === undefined ? {} : { labels: controls.labels.join(',') }),
          ...(reviewers.users.length > 0 ? { reviewer_ids: reviewers.users.map((user) => user.id) } : {}),
        },
        `opening a merge request from ${head} into ${base} in ${repository.path}`,
      );
    } catch (error) {
      // GitLab's answer when a concurrent worker opened it between our lookup and our create.
      if (isDocwrightError(error) && error.cause instanceof GitLabHttpError && error.cause.status === 409 && /already exists/i.test(error.cause.detail)) {
        const raced = await findOpen();
        if (raced) return update(raced);
      }
      throw error;
    }
    const warnings = [...reviewers.warnings, ...droppedReviewers(created, reviewers.users)];
    if (controls?.autoMerge === true) {
      const refused = await enableGitLabAutoMerge(call, projectPath, created, controls, this.autoMerge);
      if (refused !== null) warnings.push(refused);
    }
    return withWarnings({ number: created.iid, url: created.web_url, created: true }, warnings);
  }

  /**
   * Labels, reviewers and auto-merge of an open merge request a crashed attempt opened:
   * `add_labels` adds, `reviewer_ids` (which replaces) keeps the reviewers it has, and
   * auto-merge already set is left alone, so applying twice changes nothing.
   */
  private async controlExisting(call: GitLabCall, projectPath: string, existing: MergeRequest, controls: PullRequestControls): Promise<string[]> {
    const reviewers = controls.reviewers === undefined ? { users: [], warnings: [] } : await resolveReviewers(call, controls.reviewers);
    const warnings = [...reviewers.warnings];
    const present = (existing.reviewers ?? []).map((reviewer) => reviewer.id);
    const missingReviewers = reviewers.users.map((user) => user.id).filter((id) => !present.includes(id));
    const missingLabels = (controls.labels ?? []).filter((label) => !(existing.labels ?? []).includes(label));
    let current = existing;
    if (missingReviewers.length > 0 || missingLabels.length > 0) {
      try {
        current = await call<MergeRequest>(
          'PUT',
          `${projectPath}/merge_requests/${existing.iid}`,
          {
            ...(missingLabels.length > 0 ? { add_labels: missingLabels.join(',') } : {}),
            ...(missingReviewers.length > 0 ? { reviewer_ids: [...present, ...missingReviewers] } : {}),
          },
          `adding labels and reviewers to !${existing.iid}`,
        );
        warnings.push(...droppedReviewers(current, reviewers.users));
      } catch (error) {
        warnings.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (controls.autoMerge === true) {
      const refused = await enableGitLabAutoMerge(call, projectPath, current, controls, this.autoMerge);
      if (refused !== null) warnings.push(refused);
    }
    return warnings;
  }

  private token(project: ForgeProject): string {
    const credentials = project.credentials;
    if (!credentials || isAppCredentials(credentials) || credentials.token.trim().length === 0) {
      throw forgeNotConfigured(
        `Project ${project.id} uses the GitLab forge but has no GitLab token: set a project or personal access token with the api and write_repository scopes.`,
      );
    }
    return credentials.token.trim();
  }

  private async request<T = unknown>(token: string, method: string, path: string, body: unknown, action: string): Promise<T> {
    let response: Response;
    try {
      response = await this.fetch(`${this.apiBaseUrl}${path}`, {
        method,
        headers: { 'PRIVATE-TOKEN': token, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
    } catch (error) {
      if (isDocwrightError(error)) throw error;
      throw forgeUnreachable('GitLab', action, error instanceof Error && error.cause instanceof Error ? error.cause : error, [token]);
    }
    const text = await response.text();
    if (!response.ok) {
      const detail = gitLabErrorMessage(text);
      const failure = forgeHttpError('GitLab', action, response.status, detail, [token]);
      throw new DocwrightError(failure.code, failure.message, { status: failure.status, cause: new GitLabHttpError(response.status, detail) });
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new DocwrightError('forge_request_failed', `GitLab answered ${action} with something that is not JSON.`, { status: 502 });
    }
  }
}

/** GitLab errors come as `{message: string | string[] | {field: [..]}}` or `{error: string}`. */
function gitLabErrorMessage(text: string): string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return text.slice(0, 200);
  }
  if (typeof data !== 'object' || data === null) return '';
  const { message, error } = data as { message?: unknown; error?: unknown };
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  if (typeof message === 'object' && message !== null) {
    return Object.entries(message)
      .map(([field, problems]) => `${field} ${Array.isArray(problems) ? problems.join(', ') : String(problems)}`)
      .join('; ');
  }
  return typeof error === 'string' ? error : '';
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
