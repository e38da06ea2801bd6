import { execFileSync } from 'node:child_process';
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { handleGraphql } from './fake-github-graphql.js';
import { fakeSha, handlePullExtras, ownerAndName } from './fake-github-pull-extras.js';

/**
 * A loopback stand-in for the GitHub REST API: the subset Docwright's GitHub forge uses
 * (pull requests, App installation tokens, a repository lookup, the GraphQL auto-merge
 * mutation), with GitHub's JSON shapes,
 * status codes and error bodies. With `gitRoot` it checks branches against real bare
 * repositories at `<gitRoot>/OWNER/NAME.git`, as GitHub checks its own.
 */
export interface FakeGitHubApp {
  appId: string;
  /** PEM or KeyObject of the App's public key; JWTs must verify against it. */
  publicKey: string | KeyObject;
  installationId: string;
  /** `OWNER/NAME` the installation may access; omit for all. */
  repositories?: string[];
}

export interface FakeGitHubServerOptions {
  /** Personal access tokens that are accepted. */
  tokens?: string[];
  apps?: FakeGitHubApp[];
  /** Bare repositories backing the API: branches must exist for a pull request. */
  gitRoot?: string;
  /** `OWNER/NAME` that exist; by default every repository (or every one under gitRoot). */
  repositories?: string[];
  /** Base of `html_url`s; default https://github.com. */
  htmlBaseUrl?: string;
  /** Users who may be requested as reviewers (GitHub answers 422 for others); default anyone. */
  collaborators?: string[];
  installationTokenTtlSeconds?: number;
  now?: () => number;
  /** GraphQL auto-merge: see FakeGraphqlSettings. */
  autoMergeAllowed?: boolean;
  requirementsPending?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface FakeResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type FakePullRequest = Record<string, unknown> & {
  number: number;
  state: 'open' | 'closed';
  title: string;
  body: string | null;
  html_url: string;
  head: { ref: string; label: string; sha: string; [field: string]: unknown };
  base: { ref: string; label: string; sha: string; repo: { full_name: string; [field: string]: unknown }; [field: string]: unknown };
};

export interface IssuedToken {
  token: string;
  appId: string;
  installationId: string;
  expiresAt: number;
}

export interface FakeGitHubServer {
  url: string;
  requests: RecordedRequest[];
  pulls: FakePullRequest[];
  issuedTokens: IssuedToken[];
  /** Answer matching requests yourself (return undefined to pass); returns a remover. */
  intercept(handler: (request: RecordedRequest) => FakeResponse | undefined): () => void;
  revokeToken(token: string): void;
  close(): Promise<void>;
}

const DOCS = 'https://docs.github.com/rest';

export async function startFakeGitHubServer(options: FakeGitHubServerOptions = {}): Promise<FakeGitHubServer> {
  const now = options.now ?? Date.now;
  const htmlBase = (options.htmlBaseUrl ?? 'https://github.com').replace(/\/+$/, '');
  const requests: RecordedRequest[] = [];
  const pulls: FakePullRequest[] = [];
  const issuedTokens: IssuedToken[] = [];
  const revoked = new Set<string>();
  const interceptors: Array<(request: RecordedRequest) => FakeResponse | undefined> = [];
  const nextNumber = new Map<string, number>();
  let apiUrl = '';

  const error = (status: number, message: string, extra: Record<string, unknown> = {}): FakeResponse => ({
    status,
    body: { message, ...extra, documentation_url: DOCS, status: String(status) },
  });
  const validationFailed = (errors: unknown[]): FakeResponse => error(422, 'Validation Failed', { errors });

  /** The caller's identity from `Authorization: token X` / `Bearer X`, or a 401 to send. */
  function authenticate(request: RecordedRequest): { login: string; installation: IssuedToken | null } | FakeResponse {
    const header = request.headers.authorization;
    if (typeof header !== 'string') return error(401, 'Requires authentication');
    const token = header.replace(/^(?:token|bearer)\s+/i, '');
    if ((options.tokens ?? []).includes(token)) return { login: 'docs-maintainer', installation: null };
    const issued = issuedTokens.find((candidate) => candidate.token === token);
    if (issued && !revoked.has(token) && issued.expiresAt > now()) return { login: `app-${issued.appId}[bot]`, installation: issued };
    return error(401, 'Bad credentials');
  }

  function repositoryVisible(owner: string, name: string, installation: IssuedToken | null): boolean {
    const fullName = `${owner}/${name}`;
    if (options.repositories && !options.repositories.includes(fullName)) return false;
    if (!options.repositories && options.gitRoot && !existsSync(join(options.gitRoot, owner, `${name}.git`))) return false;
    if (installation) {
      const app = (options.apps ?? []).find((candidate) => candidate.installationId === installation.installationId);
      if (app?.repositories && !app.repositories.includes(fullName)) return false;
    }
    return true;
  }

  function branchCommit(owner: string, name: string, branch: string): string | null {
    if (!options.gitRoot) return fakeSha(`${owner}/${name}:${branch}`);
    try {
      return execFileSync('git', ['--git-dir', join(options.gitRoot, owner, `${name}.git`), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      }).trim();
    } catch {
      return null;
    }
  }

  function commitsBetween(owner: string, name: string, base: string, head: string): number {
    if (!options.gitRoot) return 1;
    const output = execFileSync('git', ['--git-dir', join(options.gitRoot, owner, `${name}.git`), 'rev-list', '--count', `${base}..${head}`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
    return Number.parseInt(output.trim(), 10);
  }

  function createInstallationToken(request: RecordedRequest, installationId: string): FakeResponse {
    const header = request.headers.authorization;
    const jwt = typeof header === 'string' ? header.replace(/^bearer\s+/i, '') : '';
    const [encodedHeader = '', encodedPayload = '', signature = ''] = jwt.split('.');
    let claims: { iat?: unknown; exp?: unknown; iss?: unknown };
    let alg: unknown;
    try {
      alg = (JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
      claims = JSON.parse(Buffer.from(encodedPayload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return error(401, 'A JSON web token could not be decoded');
    }
    const app = (options.apps ?? []).find((candidate) => candidate.appId === String(claims.iss));
    const key = app ? (typeof app.publicKey === 'string' ? createPublicKey(app.publicKey) : app.publicKey) : null;
    if (alg !== 'RS256' || !app || !key || !verify('RSA-SHA256', Buffer.from(`${encodedHeader}.${encodedPayload}`), key, Buffer.from(signature, 'base64url'))) {
      return error(401, 'A JSON web token could not be decoded');
    }
    const seconds = Math.floor(now() / 1000);
    if (typeof claims.iat !== 'number' || claims.iat > seconds + 60) {
      return error(401, "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued.");
    }
    if (typeof claims.exp !== 'number' || claims.exp <= seconds)
      return error(401, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires.");
    if (claims.exp - claims.iat > 600) return error(401, "'Expiration time' claim ('exp') is too far in the future.");
    if (app.installationId !== installationId) return error(404, 'Not Found');
    const expiresAt = (seconds + (options.installationTokenTtlSeconds ?? 3600)) * 1000;
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    issuedTokens.push({ token, appId: app.appId, installationId, expiresAt });
    return {
      status: 201,
      body: {
        token,
        expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions: { contents: 'write', pull_requests: 'write', metadata: 'read' },
        repository_selection: app.repositories ? 'selected' : 'all',
      },
    };
  }

  function renderPull(
    owner: string,
    name: string,
    number: number,
    fields: { title: string; body: string | null; head: string; base: string; login: string; headSha: string; baseSha: string; draft: boolean },
  ): FakePullRequest {
    const timestamp = new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const repo = {
      id: 1000,
      name,
      full_name: `${owner}/${name}`,
      private: true,
      owner: { login: owner, type: 'Organization' },
      html_url: `${htmlBase}/${owner}/${name}`,
    };
    const apiPull = `${apiUrl}/repos/${owner}/${name}/pulls/${number}`;
    return {
      url: apiPull,
      id: 5_000_000 + pulls.length,
      node_id: `PR_fake${pulls.length}`,
      html_url: `${htmlBase}/${owner}/${name}/pull/${number}`,
      diff_url: `${htmlBase}/${owner}/${name}/pull/${number}.diff`,
      patch_url: `${htmlBase}/${owner}/${name}/pull/${number}.patch`,
      issue_url: `${apiUrl}/repos/${owner}/${name}/issues/${number}`,
      commits_url: `${apiPull}/commits`,
      number,
      state: 'open',
      locked: false,
      title: fields.title,
      body: fields.body,
      user: { login: fields.login, type: fields.login.endsWith('[bot]') ? 'Bot' : 'User' },
      labels: [],
      milestone: null,
      created_at: timestamp,
      updated_at: timestamp,
      closed_at: null,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      draft: fields.draft,
      head: { label: `${owner}:${fields.head}`, ref: fields.head, sha: fields.headSha, user: { login: owner }, repo },
      base: { label: `${owner}:${fields.base}`, ref: fields.base, sha: fields.baseSha, user: { login: owner }, repo },
      author_association: 'MEMBER',
      auto_merge: null,
    };
  }

  function handlePulls(request: RecordedRequest, owner: string, name: string, login: string, number: string | undefined): FakeResponse {
    const repositoryPulls = pulls.filter((pull) => pull.base.repo.full_name === `${owner}/${name}`);
    if (number === undefined && request.method === 'GET') {
      // GET /repos/{owner}/{repo}/pulls: state (default open), head as `owner:branch` (GitHub
      // ignores a head without the owner), base, newest first, per_page (30, at most 100),
      // page, and a Link header to the next and last pages.
      const state = request.query.state ?? 'open';
      if (!['open', 'closed', 'all'].includes(state)) return validationFailed([{ resource: 'Issue', field: 'state', code: 'invalid' }]);
      const head = request.query.head;
      const selected = repositoryPulls
        .filter((pull) => state === 'all' || pull.state === state)
        .filter((pull) => head === undefined || !head.includes(':') || pull.head.label === head)
        .filter((pull) => request.query.base === undefined || pull.base.ref === request.query.base)
        .sort((a, b) => b.number - a.number);
      const perPage = Math.min(Math.max(1, Number(request.query.per_page ?? 30)), 100);
      const page = Math.max(1, Number(request.query.page ?? 1));
      const lastPage = Math.max(1, Math.ceil(selected.length / perPage));
      const pageUrl = (target: number) =>
        `${apiUrl}${request.path}?${new URLSearchParams({ ...request.query, per_page: String(perPage), page: String(target) }).toString()}`;
      const headers: Record<string, string> = page < lastPage ? { Link: `<${pageUrl(page + 1)}>; rel="next", <${pageUrl(lastPage)}>; rel="last"` } : {};
      return { status: 200, body: selected.slice((page - 1) * perPage, page * perPage), headers };
    }
    if (number === undefined && request.method === 'POST') {
      const body = (request.body ?? {}) as Record<string, unknown>;
      for (const field of ['head', 'base'] as const) {
        if (typeof body[field] !== 'string' || body[field] === '') return validationFailed([{ resource: 'PullRequest', field, code: 'missing_field' }]);
      }
      if (typeof body.title !== 'string' || body.title === '') return validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
      const head = (body.head as string).replace(new RegExp(`^${owner}:`), '');
      const base = body.base as string;
      const headSha = branchCommit(owner, name, head);
      const baseSha = branchCommit(owner, name, base);
      if (headSha === null) return validationFailed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
      if (baseSha === null) return validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
      if (repositoryPulls.some((pull) => pull.state === 'open' && pull.head.ref === head && pull.base.ref === base)) {
        return validationFailed([{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${owner}:${head}.` }]);
      }
      if (commitsBetween(owner, name, base, head) === 0)
        return validationFailed([{ resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` }]);
      const key = `${owner}/${name}`;
      const assigned = nextNumber.get(key) ?? 1;
      nextNumber.set(key, assigned + 1);
      const pull = renderPull(owner, name, assigned, {
        title: body.title,
        body: typeof body.body === 'string' ? body.body : null,
        head,
        base,
        login,
        headSha,
        baseSha,
        draft: body.draft === true,
      });
      pulls.push(pull);
      return { status: 201, body: pull, headers: { Location: String(pull.url) } };
    }
    const pull = repositoryPulls.find((candidate) => String(candidate.number) === number);
    if (!pull) return error(404, 'Not Found');
    if (request.method === 'GET') return { status: 200, body: pull };
    if (request.method === 'PATCH') {
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (typeof body.title === 'string') pull.title = body.title;
      if (typeof body.body === 'string') pull.body = body.body;
      if (body.state === 'open' || body.state === 'closed') {
        pull.state = body.state;
        pull.closed_at = body.state === 'closed' ? new Date(now()).toISOString() : null;
      }
      pull.updated_at = new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return { status: 200, body: pull };
    }
    return error(404, 'Not Found');
  }

  function route(request: RecordedRequest): FakeResponse {
    for (const interceptor of interceptors) {
      const answer = interceptor(request);
      if (answer) return answer;
    }
    if (request.path === '/graphql' && request.method === 'POST') {
      const identity = authenticate(request);
      if ('status' in identity) return identity;
      const visible = pulls.filter((pull) => repositoryVisible(...ownerAndName(pull.base.repo.full_name), identity.installation));
      return handleGraphql(request, visible, { ...options, now }, identity.login);
    }
    const tokenRoute = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(request.path);
    if (tokenRoute && request.method === 'POST') return createInstallationToken(request, tokenRoute[1] ?? '');
    const subRoute = /^\/repos\/([^/]+)\/([^/]+)\/(?:pulls\/(\d+)\/requested_reviewers|issues\/(\d+)\/labels)$/.exec(request.path);
    const repositoryRoute = subRoute ?? /^\/repos\/([^/]+)\/([^/]+)(?:\/pulls(?:\/(\d+))?)?$/.exec(request.path);
    if (!repositoryRoute) return error(404, 'Not Found');
    const identity = authenticate(request);
    if ('status' in identity) return identity;
    const [, owner = '', name = '', number] = repositoryRoute;
    if (!repositoryVisible(owner, name, identity.installation)) return error(404, 'Not Found');
    if (subRoute) {
      const number = subRoute[3] ?? subRoute[4] ?? '';
      const pull = pulls.find((candidate) => candidate.base.repo.full_name === `${owner}/${name}` && String(candidate.number) === number);
      if (!pull || request.method !== 'POST') return error(404, 'Not Found');
      return handlePullExtras(request, pull, options.collaborators, validationFailed);
    }
    if (!request.path.includes('/pulls')) {
      if (request.method !== 'GET') return error(404, 'Not Found');
      return {
        status: 200,
        body: { id: 1000, name, full_name: `${owner}/${name}`, private: true, default_branch: 'main', html_url: `${htmlBase}/${owner}/${name}` },
      };
    }
    return handlePulls(request, owner, name, identity.login, number);
  }

  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://localhost');
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      let answer: FakeResponse | undefined;
      try {
        body = text.length > 0 ? JSON.parse(text) : null;
      } catch {
        answer = error(400, 'Problems parsing JSON');
      }
      const request: RecordedRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { ...incoming.headers },
        body,
      };
      requests.push(request);
      answer ??= route(request);
      const payload = answer.body === undefined ? '' : JSON.stringify(answer.body);
      outgoing.writeHead(answer.status, {
        'Content-Type': 'application/json; charset=utf-8',
        'X-GitHub-Media-Type': 'github.v3; format=json',
        ...answer.headers,
      });
      outgoing.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: apiUrl,
    requests,
    pulls,
    issuedTokens,
    intercept(handler) {
      interceptors.push(handler);
      return () => {
        const index = interceptors.indexOf(handler);
        if (index !== -1) interceptors.splice(index, 1);
      };
    },
    revokeToken: (token) => revoked.add(token),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
