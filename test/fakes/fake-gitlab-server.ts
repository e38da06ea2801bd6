import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { applyReviewFields, findUsers, mergeMergeRequest, type FakeGitLabUser } from './fake-gitlab-extras.js';

/**
 * A loopback stand-in for GitLab's REST v4 merge request API (create, list, update, merge,
 * user lookup), with GitLab's JSON shapes,
 * status codes and error bodies. With `gitRoot`, branches are checked against real bare
 * repositories at `<gitRoot>/GROUP/…/NAME.git`.
 */
export interface FakeGitLabServerOptions {
  /** Accepted `PRIVATE-TOKEN` values. */
  tokens?: string[];
  gitRoot?: string;
  /** Project paths that exist; by default all (or all under gitRoot). */
  projects?: string[];
  htmlBaseUrl?: string;
  now?: () => number;
  /** Users `GET /users?username=` finds and `reviewer_ids` may name. */
  users?: FakeGitLabUser[];
  /** Usernames GitLab accepts as reviewers; default every user. */
  members?: string[];
  /** How many merge calls find a new merge request still being checked (405). */
  mergeChecksPending?: number;
}

export interface RecordedGitLabRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export type FakeMergeRequest = Record<string, unknown> & {
  iid: number;
  project_path: string;
  state: 'opened' | 'closed' | 'merged';
  title: string;
  description: string | null;
  source_branch: string;
  target_branch: string;
  web_url: string;
};

export interface FakeGitLabServer {
  /** Server root; the API is at `apiUrl`. */
  url: string;
  apiUrl: string;
  requests: RecordedGitLabRequest[];
  mergeRequests: FakeMergeRequest[];
  intercept(handler: (request: RecordedGitLabRequest) => Answer | undefined): () => void;
  close(): Promise<void>;
}

/** `headers` lets a test answer a redirect (`Location`). */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export async function startFakeGitLabServer(options: FakeGitLabServerOptions = {}): Promise<FakeGitLabServer> {
  const now = options.now ?? Date.now;
  const htmlBase = (options.htmlBaseUrl ?? 'https://gitlab.com').replace(/\/+$/, '');
  const requests: RecordedGitLabRequest[] = [];
  const mergeRequests: FakeMergeRequest[] = [];
  const interceptors: Array<(request: RecordedGitLabRequest) => Answer | undefined> = [];
  const review = { users: options.users ?? [], members: options.members, htmlBase };
  const mergeChecks = { checksPending: options.mergeChecksPending ?? 0 };
  const gitEnv = { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

  const projectExists = (path: string): boolean =>
    options.projects ? options.projects.includes(path) : options.gitRoot ? existsSync(join(options.gitRoot, `${path}.git`)) : true;

  function branchCommit(path: string, branch: string): string | null {
    if (!options.gitRoot) return '0'.repeat(40);
    try {
      return execFileSync('git', ['--git-dir', join(options.gitRoot, `${path}.git`), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
        encoding: 'utf8',
        env: gitEnv,
      }).trim();
    } catch {
      return null;
    }
  }

  function timestamp(): string {
    return new Date(now()).toISOString();
  }

  function create(path: string, body: Record<string, unknown>): Answer {
    const missing = ['source_branch', 'target_branch', 'title'].filter((field) => typeof body[field] !== 'string' || body[field] === '');
    if (missing.length > 0) return { status: 400, body: { error: missing.map((field) => `${field} is missing`).join(', ') } };
    const source = body.source_branch as string;
    const target = body.target_branch as string;
    const sha = branchCommit(path, source);
    if (sha === null) return { status: 400, body: { message: [`Source branch "${source}" does not exist`] } };
    if (branchCommit(path, target) === null) return { status: 400, body: { message: [`Target branch "${target}" does not exist`] } };
    const duplicate = mergeRequests.find(
      (request) => request.project_path === path && request.state === 'opened' && request.source_branch === source && request.target_branch === target,
    );
    if (duplicate) return { status: 409, body: { message: [`Another open merge request already exists for this source branch: !${duplicate.iid}`] } };
    const iid = mergeRequests.filter((request) => request.project_path === path).length + 1;
    const mergeRequest: FakeMergeRequest = {
      id: 90_000 + mergeRequests.length,
      iid,
      project_id: 4242,
      project_path: path,
      title: body.title as string,
      description: typeof body.description === 'string' ? body.description : null,
      state: 'opened',
      created_at: timestamp(),
      updated_at: timestamp(),
      merged_at: null,
      closed_at: null,
      target_branch: target,
      source_branch: source,
      author: { id: 7, username: 'docwright-bot', name: 'Docwright', state: 'active' },
      assignees: [],
      reviewers: [],
      labels: [],
      draft: false,
      work_in_progress: false,
      merge_when_pipeline_succeeds: false,
      merge_user: null,
      squash: false,
      head_pipeline: { id: 700 + iid, status: 'running', sha },
      merge_status: 'can_be_merged',
      detailed_merge_status: 'mergeable',
      sha,
      merge_commit_sha: null,
      web_url: `${htmlBase}/${path}/-/merge_requests/${iid}`,
      references: { short: `!${iid}`, full: `${path}!${iid}` },
    };
    applyReviewFields(mergeRequest, body, review);
    mergeRequests.push(mergeRequest);
    return { status: 201, body: mergeRequest };
  }

  function route(request: RecordedGitLabRequest, rawPath: string): Answer {
    for (const interceptor of interceptors) {
      const answer = interceptor(request);
      if (answer) return answer;
    }
    const match = /^\/api\/v4\/projects\/([^/]+)\/merge_requests(?:\/(\d+)(\/merge)?)?$/.exec(rawPath);
    const usersRoute = rawPath === '/api/v4/users' && request.method === 'GET';
    if (!match && !usersRoute) return { status: 404, body: { error: '404 Not Found' } };
    const token = request.headers['private-token'];
    if (typeof token !== 'string' || !(options.tokens ?? []).includes(token)) return { status: 401, body: { message: '401 Unauthorized' } };
    if (!match) return findUsers(request, review);
    const path = decodeURIComponent(match[1] ?? '');
    if (!projectExists(path)) return { status: 404, body: { message: '404 Project Not Found' } };
    const iid = match[2];
    const own = mergeRequests.filter((candidate) => candidate.project_path === path);
    if (iid === undefined && request.method === 'GET') {
      // GET /projects/:id/merge_requests: state (opened, closed, merged, locked; all when
      // omitted), source_branch, target_branch, newest first, per_page (20, at most 100),
      // page, and GitLab's X-Total / X-Page / X-Next-Page headers.
      const { state, source_branch: source, target_branch: target } = request.query;
      if (state !== undefined && !['opened', 'closed', 'merged', 'locked', 'all'].includes(state))
        return { status: 400, body: { error: 'state does not have a valid value' } };
      const selected = own
        .filter((candidate) => state === undefined || state === 'all' || candidate.state === state)
        .filter((candidate) => source === undefined || candidate.source_branch === source)
        .filter((candidate) => target === undefined || candidate.target_branch === target)
        .sort((a, b) => b.iid - a.iid);
      const perPage = Math.min(Math.max(1, Number(request.query.per_page ?? 20)), 100);
      const page = Math.max(1, Number(request.query.page ?? 1));
      const totalPages = Math.max(1, Math.ceil(selected.length / perPage));
      return {
        status: 200,
        body: selected.slice((page - 1) * perPage, page * perPage),
        headers: {
          'X-Total': String(selected.length),
          'X-Total-Pages': String(totalPages),
          'X-Per-Page': String(perPage),
          'X-Page': String(page),
          'X-Next-Page': page < totalPages ? String(page + 1) : '',
          'X-Prev-Page': page > 1 ? String(page - 1) : '',
        },
      };
    }
    if (iid === undefined && request.method === 'POST') return create(path, (request.body ?? {}) as Record<string, unknown>);
    const mergeRequest = own.find((candidate) => String(candidate.iid) === iid);
    if (!mergeRequest) return { status: 404, body: { message: '404 Not found' } };
    if (match[3] !== undefined) {
      if (request.method !== 'PUT') return { status: 405, body: { error: '405 Method Not Allowed' } };
      return mergeMergeRequest(mergeRequest, (request.body ?? {}) as Record<string, unknown>, mergeChecks, timestamp());
    }
    if (request.method === 'GET') return { status: 200, body: mergeRequest };
    if (request.method === 'PUT') {
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (typeof body.title === 'string') mergeRequest.title = body.title;
      if (typeof body.description === 'string') mergeRequest.description = body.description;
      if (body.state_event === 'close') mergeRequest.state = 'closed';
      if (body.state_event === 'reopen') mergeRequest.state = 'opened';
      applyReviewFields(mergeRequest, body, review);
      mergeRequest.updated_at = timestamp();
      return { status: 200, body: mergeRequest };
    }
    return { status: 405, body: { error: '405 Method Not Allowed' } };
  }

  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const rawPath = (incoming.url ?? '/').split('?')[0] ?? '/';
      const url = new URL(incoming.url ?? '/', 'http://localhost');
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      let answer: Answer | undefined;
      try {
        body = text.length > 0 ? JSON.parse(text) : null;
      } catch {
        answer = { status: 400, body: { error: 'The provided content-type is not supported.' } };
      }
      const request: RecordedGitLabRequest = {
        method: incoming.method ?? 'GET',
        path: rawPath,
        query: Object.fromEntries(url.searchParams),
        headers: { ...incoming.headers },
        body,
      };
      requests.push(request);
      answer ??= route(request, rawPath);
      outgoing.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
      outgoing.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: root,
    apiUrl: `${root}/api/v4`,
    requests,
    mergeRequests,
    intercept(handler) {
      interceptors.push(handler);
      return () => {
        const index = interceptors.indexOf(handler);
        if (index !== -1) interceptors.splice(index, 1);
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
