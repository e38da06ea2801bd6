import type { Octokit } from '@octokit/rest';
import { systemClock, type Clock } from '../../core/clock.js';
import { isDocwrightError } from '../../core/errors.js';
import type { GitAuth } from '../git-auth.js';
import { validateRefName } from '../ref-name.js';
import {
  isAppCredentials,
  type Forge,
  type ForgeProject,
  type ForgeRemote,
  type PullRequestRequest,
  type PullRequestResult,
  type WriteFence,
  withWarnings,
} from './forge.js';
import { forgeNotConfigured } from './forge-errors.js';
import { enableGitHubAutoMerge } from './github-auto-merge.js';
import { forgeGitUrl } from './forge-remote-url.js';
import { GitHubAppTokens } from './github-app-token.js';
import { parseGitHubRepository, type GitHubRepository } from './github-repository.js';
import { callGitHub, createOctokit, gitHubErrorMessages, isGitHubHttpFailure, toForgeError } from './github-request.js';

export { parseGitHubRepository, type GitHubRepository } from './github-repository.js';

export interface GitHubForgeOptions {
  /** REST API root; GitHub Enterprise Server uses `https://HOST/api/v3`. */
  apiBaseUrl?: string;
  /** Where repositories are cloned from: a URL, or a directory holding `OWNER/NAME.git`. */
  gitBaseUrl?: string;
  /** What project repository URLs must start with. */
  webBaseUrl?: string;
  clock?: Clock;
  requestTimeoutMs?: number;
  userAgent?: string;
}

/** GitHub's limits; longer values are cut rather than failing the job at the very end. */
const MAX_TITLE_LENGTH = 256;
const MAX_BODY_LENGTH = 65_536;

interface PullRequestSummary {
  number: number;
  node_id: string;
  html_url: string;
  title: string;
  body: string | null;
  head: { ref: string };
  /** Null until auto-merge is enabled. */
  auto_merge?: unknown;
}

/** Pull requests on github.com or GitHub Enterprise, as a token or a GitHub App installation. */
export class GitHubForge implements Forge {
  readonly kind = 'github' as const;
  private readonly apiBaseUrl: string;
  private readonly gitBaseUrl: string;
  private readonly webBaseUrl: string;
  private readonly requestTimeoutMs: number;
  private readonly userAgent: string;
  private readonly appTokens: GitHubAppTokens;

  constructor(options: GitHubForgeOptions = {}) {
    this.apiBaseUrl = (options.apiBaseUrl ?? 'https://api.github.com').replace(/\/+$/, '');
    this.gitBaseUrl = options.gitBaseUrl ?? 'https://github.com';
    this.webBaseUrl = (options.webBaseUrl ?? 'https://github.com').replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'docwright';
    this.appTokens = new GitHubAppTokens({
      apiBaseUrl: this.apiBaseUrl,
      clock: options.clock ?? systemClock,
      requestTimeoutMs: this.requestTimeoutMs,
      userAgent: this.userAgent,
    });
  }

  parseRepository(repository: string): GitHubRepository {
    return parseGitHubRepository(repository, this.webBaseUrl);
  }

  async remote(project: ForgeProject): Promise<ForgeRemote> {
    const repository = this.parseRepository(project.repository);
    const token = await this.token(project);
    const auth: GitAuth = { username: 'x-access-token', password: token };
    return { url: forgeGitUrl(this.gitBaseUrl, [repository.owner, repository.name]), auth };
  }

  async openOrUpdatePullRequest(project: ForgeProject, pr: PullRequestRequest, fence?: WriteFence): Promise<PullRequestResult> {
    const repository = this.parseRepository(project.repository);
    const base = validateRefName(pr.base, 'base');
    const head = validateRefName(pr.head, 'head');
    const title = clip(pr.title.trim() || `Docwright: ${head}`, MAX_TITLE_LENGTH);
    const body = clip(pr.body, MAX_BODY_LENGTH);
    return this.withOctokit(project, async (octokit, secrets) => {
      // An open pull request the job has not recorded was opened by an attempt that died
      // before recording it: it gets the controls that attempt may not have applied.
      const adopt = async (existing: PullRequestSummary): Promise<PullRequestResult> => {
        const result = await this.update(octokit, secrets, repository, existing, title, body);
        if (pr.controls === undefined || existing.number === pr.recordedNumber) return result;
        return withWarnings(result, await this.applyControls(octokit, secrets, repository, existing, pr.controls));
      };
      const existing = await this.findOpenPullRequest(octokit, secrets, repository, head);
      await fence?.();
      if (existing) return adopt(existing);
      try {
        const created = await octokit.rest.pulls.create({
          owner: repository.owner,
          repo: repository.name,
          base,
          head,
          title,
          body,
          ...(pr.controls?.draft === true ? { draft: true } : {}),
          request: { signal: AbortSignal.timeout(this.requestTimeoutMs) },
        });
        const warnings = await this.applyControls(octokit, secrets, repository, created.data, pr.controls);
        return withWarnings({ number: created.data.number, url: created.data.html_url, created: true }, warnings);
      } catch (error) {
        // Another worker opened it between our lookup and our create: use theirs.
        if (isGitHubHttpFailure(error) && error.status === 422 && gitHubErrorMessages(error).some((message) => /already exists/i.test(message))) {
          const raced = await this.findOpenPullRequest(octokit, secrets, repository, head);
          if (raced) return adopt(raced);
        }
        throw toForgeError(`opening a pull request from ${head} into ${base} in ${repository.owner}/${repository.name}`, secrets, error);
      }
    });
  }

  /**
   * Reviewers (`org/team` entries as team reviewers), labels and auto-merge of a pull
   * request just opened or adopted (requesting a reviewer or adding a label twice changes
   * nothing on GitHub; auto-merge already on is left as it is). Each failure becomes a
   * warning: the pull request stands either way.
   */
  private async applyControls(
    octokit: Octokit,
    secrets: readonly string[],
    repository: GitHubRepository,
    pull: Pick<PullRequestSummary, 'number' | 'node_id' | 'auto_merge'>,
    controls: PullRequestRequest['controls'],
  ): Promise<string[]> {
    const { number } = pull;
    const warnings: string[] = [];
    const attempt = async (what: string, call: (signal: AbortSignal) => Promise<unknown>): Promise<void> => {
      try {
        await callGitHub(`${what} on pull request #${number} of ${repository.owner}/${repository.name}`, secrets, call, this.requestTimeoutMs);
      } catch (error) {
        warnings.push(error instanceof Error ? error.message : String(error));
      }
    };
    const reviewers = controls?.reviewers ?? [];
    if (reviewers.length > 0) {
      const users = reviewers.filter((reviewer) => !reviewer.includes('/'));
      const teams = reviewers.filter((reviewer) => reviewer.includes('/')).map((team) => team.slice(team.indexOf('/') + 1));
      await attempt('requesting reviewers', (signal) =>
        octokit.rest.pulls.requestReviewers({
          owner: repository.owner,
          repo: repository.name,
          pull_number: number,
          reviewers: users,
          team_reviewers: teams,
          request: { signal },
        }),
      );
    }
    const labels = controls?.labels ?? [];
    if (labels.length > 0) {
      await attempt('adding labels', (signal) =>
        octokit.rest.issues.addLabels({ owner: repository.owner, repo: repository.name, issue_number: number, labels, request: { signal } }),
      );
    }
    if (controls?.autoMerge === true && (pull.auto_merge === null || pull.auto_merge === undefined)) {
      const target = { nodeId: pull.node_id, number, repository: `${repository.owner}/${repository.name}`, mergeMethod: controls.mergeMethod };
      const refused = await enableGitHubAutoMerge(octokit, target, secrets, this.requestTimeoutMs);
      if (refused !== null) warnings.push(refused);
    }
    return warnings;
  }

  private async findOpenPullRequest(
    octokit: Octokit,
    secrets: readonly string[],
    repository: GitHubRepository,
    head: string,
  ): Promise<PullRequestSummary | null> {
    const response = await callGitHub(
      `looking up open pull requests of ${repository.owner}/${repository.name}`,
      secrets,
      (signal) =>
        octokit.rest.pulls.list({
          owner: repository.owner,
          repo: repository.name,
          state: 'open',
          head: `${repository.owner}:${head}`,
          per_page: 100,
          request: { signal },
        }),
      this.requestTimeoutMs,
    );
    // The head filter is GitHub's; checking the ref again guards against a lax server.
    return response.data.find((pull) => pull.head.ref === head) ?? null;
  }

  private async update(
    octokit: Octokit,
    secrets: readonly string[],
    repository: GitHubRepository,
    existing: PullRequestSummary,
    title: string,
    body: string,
  ): Promise<PullRequestResult> {
    if (existing.title !== title || (existing.body ?? '') !== body) {
      await callGitHub(
        `updating pull request #${existing.number} of ${repository.owner}/${repository.name}`,
        secrets,
        (signal) =>
          octokit.rest.pulls.update({
            owner: repository.owner,
            repo: repository.name,
            pull_number: existing.number,
            title,
            body,
            request: { signal },
          }),
        this.requestTimeoutMs,
      );
    }
    return { number: existing.number, url: existing.html_url, created: false };
  }

  /**
   * Runs `work` with an authenticated client. An App installation token GitHub stops
   * accepting (revoked, installation changed) is renewed once before giving up.
   */
  private async withOctokit<T>(project: ForgeProject, work: (octokit: Octokit, secrets: readonly string[]) => Promise<T>): Promise<T> {
    const run = (token: string): Promise<T> => work(createOctokit({ auth: token, baseUrl: this.apiBaseUrl, userAgent: this.userAgent }), [token]);
    // A failed token exchange propagates from here as it is; retrying it would fail the same way.
    const token = await this.token(project);
    try {
      return await run(token);
    } catch (error) {
      const credentials = project.credentials;
      if (credentials && isAppCredentials(credentials) && isDocwrightError(error) && error.code === 'forge_auth_failed') {
        this.appTokens.invalidate(credentials);
        const renewed = await this.token(project);
        if (renewed !== token) return run(renewed);
      }
      throw error;
    }
  }

  private async token(project: ForgeProject): Promise<string> {
    const credentials = project.credentials;
    if (!credentials) {
      throw forgeNotConfigured(
        `Project ${project.id} uses the GitHub forge but has no GitHub credentials: set a token with contents and pull request write access, or a GitHub App installation.`,
      );
    }
    if (isAppCredentials(credentials)) return this.appTokens.token(credentials);
    if (credentials.token.trim().length === 0) throw forgeNotConfigured(`Project ${project.id} has an empty GitHub token.`);
    return credentials.token.trim();
  }
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
