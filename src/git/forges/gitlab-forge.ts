import { DocwrightError, isDocwrightError } from '../../core/errors.js';
import { validateRefName } from '../ref-name.js';
import {
  isAppCredentials,
  type Forge,
  type ForgeProject,
  type ForgeRemote,
  type PullRequestRequest,
  type PullRequestResult,
  type WriteFence,
} from './forge.js';
import { forgeHttpError, forgeNotConfigured, forgeUnreachable } from './forge-errors.js';
import { forgeFetch } from './forge-fetch.js';
import { forgeGitUrl } from './forge-remote-url.js';
import { parseGitLabRepository, type GitLabRepository } from './gitlab-repository.js';

export { parseGitLabRepository, type GitLabRepository } from './gitlab-repository.js';

export interface GitLabForgeOptions {
  /** REST v4 root, e.g. `https://gitlab.example.com/api/v4` for self-managed GitLab. */
  apiBaseUrl?: string;
  /** Where repositories are cloned from: a URL, or a directory holding `GROUP/…/NAME.git`. */
  gitBaseUrl?: string;
  /** What project repository URLs must start with. */
  webBaseUrl?: string;
  requestTimeoutMs?: number;
}

/** GitLab's limits for merge request titles and descriptions. */
const MAX_TITLE_LENGTH = 255;
const MAX_DESCRIPTION_LENGTH = 1_000_000;

interface MergeRequest {
  iid: number;
  title: string;
  description: string | null;
  web_url: string;
  source_branch: string;
}

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
  private readonly fetch = forgeFetch('GitLab');

  constructor(options: GitLabForgeOptions = {}) {
    this.apiBaseUrl = (options.apiBaseUrl ?? 'https://gitlab.com/api/v4').replace(/\/+$/, '');
    this.gitBaseUrl = options.gitBaseUrl ?? 'https://gitlab.com';
    this.webBaseUrl = (options.webBaseUrl ?? 'https://gitlab.com').replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
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

    const findOpen = async (): Promise<MergeRequest | null> => {
      const query = new URLSearchParams({ state: 'opened', source_branch: head, per_page: '100' });
      const found = await this.request<MergeRequest[]>(
        token,
        'GET',
        `${projectPath}/merge_requests?${query.toString()}`,
        undefined,
        `looking up open ${where}`,
      );
      return found.find((mergeRequest) => mergeRequest.source_branch === head) ?? null;
    };
    const update = async (existing: MergeRequest): Promise<PullRequestResult> => {
      if (existing.title !== title || (existing.description ?? '') !== description) {
        await this.request(
          token,
          'PUT',
          `${projectPath}/merge_requests/${existing.iid}`,
          { title, description },
          `updating !${existing.iid} of ${repository.path}`,
        );
      }
      return { number: existing.iid, url: existing.web_url, created: false };
    };

    const existing = await findOpen();
    await fence?.();
    if (existing) return update(existing);
    try {
      const created = await this.request<MergeRequest>(
        token,
        'POST',
        `${projectPath}/merge_requests`,
        { source_branch: head, target_branch: base, title, description },
        `opening a merge request from ${head} into ${base} in ${repository.path}`,
      );
      return { number: created.iid, url: created.web_url, created: true };
    } catch (error) {
      // GitLab's answer when a concurrent worker opened it between our lookup and our create.
      if (isDocwrightError(error) && error.cause instanceof GitLabHttpError && error.cause.status === 409 && /already exists/i.test(error.cause.detail)) {
        const raced = await findOpen();
        if (raced) return update(raced);
      }
      throw error;
    }
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
