import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { basicCredentials, type GitAuth } from '../../src/git/git-auth.js';
import type { ForgeCredentials, ForgeProject } from '../../src/git/forges/forge.js';
import { GitHubForge } from '../../src/git/forges/github-forge.js';
import { GitLabForge } from '../../src/git/forges/gitlab-forge.js';
import { prepareWorkspace } from '../../src/git/workspace.js';
import { startFakeGitHubServer, type FakeGitHubServer } from '../fakes/fake-github-server.js';
import { startFakeGitLabServer, type FakeGitLabServer } from '../fakes/fake-gitlab-server.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { createBareRepository, temporaryDirectory, writeFiles } from './git-fixtures.js';
import { startGitHttpServer } from './git-http-server.js';
import { rejection } from '../helpers/rejection.js';

/**
 * A forge (or something posing as one) that answers with a redirect to another origin must
 * never get Docwright to hand that origin a credential, nor to take its answer for the
 * forge's. The "other origin" is a second loopback server on another port that records
 * everything it receives.
 */
const GITLAB_TOKEN = 'glpat-RedirectToken0123456789ab';
const GITHUB_TOKEN = 'ghp_RedirectToken0123456789abcdefghijklm';

let temp: ReturnType<typeof temporaryDirectory>;
let elsewhere: RecordingServer | undefined;

beforeEach(() => {
  temp = temporaryDirectory();
  elsewhere = undefined;
});
afterEach(async () => {
  await elsewhere?.close();
  temp.cleanup();
});

const pr = (head: string) => ({ base: 'main', head, title: 'Docs: fix typos', body: 'Requested by a job.' });

describe('GitLab API redirects', () => {
  let gitlab: FakeGitLabServer;
  beforeEach(async () => {
    createBareRepository(join(temp.path, 'gitlab', 'acme', 'docs.git'));
    gitlab = await startFakeGitLabServer({ tokens: [GITLAB_TOKEN], gitRoot: join(temp.path, 'gitlab') });
  });
  afterEach(async () => gitlab.close());

  const forge = () => new GitLabForge({ apiBaseUrl: gitlab.apiUrl, gitBaseUrl: join(temp.path, 'gitlab') });
  const project = (repository = 'https://gitlab.com/acme/docs'): ForgeProject => ({
    id: 'prj_gl',
    repository,
    ref: 'main',
    credentials: { token: GITLAB_TOKEN },
  });

  test.each([302, 307])('an HTTP %i to another origin fails the call, and PRIVATE-TOKEN never reaches it', async (status) => {
    const other = (elsewhere = await startRecordingServer({ status: 200, body: [] }));
    gitlab.intercept((request) => ({ status, headers: { Location: `${other.url}${request.path}` } }));
    const outcome = forge().openOrUpdatePullRequest(project(), pr('docwright/redirected'));
    await outcome.catch(() => {});
    expect(other.everythingReceived()).not.toContain(GITLAB_TOKEN);
    expect(other.calls).toEqual([]);
    const error = await rejection(outcome);
    expect(error.code).toBe('forge_redirect_refused');
    expect(error.message).toContain(`another origin (${other.url})`);
    expect(error.message).toContain('DOCWRIGHT_GITLAB_API_URL');
  });

  test('a redirect within the API origin (a moved project) is followed with the token, keeping POST bodies on 308', async () => {
    await pushBranch(forge(), project(), 'docwright/moved');
    const oldPath = `/api/v4/projects/${encodeURIComponent('acme/old-docs')}/`;
    gitlab.intercept((request) => {
      if (!request.path.startsWith(oldPath)) return undefined;
      const query = new URLSearchParams(request.query).toString();
      const moved = request.path.replace(encodeURIComponent('acme/old-docs'), encodeURIComponent('acme/docs'));
      return { status: request.method === 'GET' ? 301 : 308, headers: { Location: `${gitlab.url}${moved}${query ? `?${query}` : ''}` } };
    });
    const result = await forge().openOrUpdatePullRequest(project('https://gitlab.com/acme/old-docs'), pr('docwright/moved'));
    expect(result).toMatchObject({ number: 1, created: true });
    expect(gitlab.mergeRequests[0]).toMatchObject({ project_path: 'acme/docs', source_branch: 'docwright/moved', title: 'Docs: fix typos' });
    const followed = gitlab.requests.filter((request) => request.path.includes(encodeURIComponent('acme/docs')));
    expect(followed.map((request) => request.method)).toEqual(['GET', 'POST']);
    expect(followed.every((request) => request.headers['private-token'] === GITLAB_TOKEN)).toBe(true);
  });
});

describe('GitHub API redirects', () => {
  let github: FakeGitHubServer;
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const app = { appId: '4242', installationId: '77', privateKey: keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() };
  const clock = new ManualClock(Date.UTC(2026, 0, 10, 9));

  beforeEach(async () => {
    createBareRepository(join(temp.path, 'github', 'acme', 'docs.git'));
    github = await startFakeGitHubServer({
      tokens: [GITHUB_TOKEN],
      gitRoot: join(temp.path, 'github'),
      apps: [{ appId: app.appId, publicKey: keys.publicKey, installationId: app.installationId }],
      now: () => clock.now(),
    });
  });
  afterEach(async () => github.close());

  const forge = () => new GitHubForge({ apiBaseUrl: github.url, gitBaseUrl: join(temp.path, 'github'), clock });
  const project = (credentials: ForgeCredentials = { token: GITHUB_TOKEN }, repository = 'https://github.com/acme/docs'): ForgeProject => ({
    id: 'prj_gh',
    repository,
    ref: 'main',
    credentials,
  });

  test('a pull request lookup redirected to another origin fails, and that origin neither gets the token nor supplies the answer', async () => {
    // What the other origin would answer: a pull request of its own choosing.
    const other = (elsewhere = await startRecordingServer({
      status: 200,
      body: [{ number: 99, html_url: 'https://evil.example/pull/99', title: 'x', body: 'x', head: { ref: 'docwright/redirected' } }],
    }));
    github.intercept((request) =>
      request.path === '/repos/acme/docs/pulls' ? { status: 302, headers: { Location: `${other.url}/repos/acme/docs/pulls` } } : undefined,
    );
    const error = await rejection(forge().openOrUpdatePullRequest(project(), pr('docwright/redirected')));
    expect(error.code).toBe('forge_redirect_refused');
    expect(error.message).toContain('DOCWRIGHT_GITHUB_API_URL');
    expect(other.everythingReceived()).not.toContain(GITHUB_TOKEN);
    expect(other.calls).toEqual([]);
  });

  test('an App token exchange redirected (307) to another origin sends neither the JWT nor the request there', async () => {
    const other = (elsewhere = await startRecordingServer({
      status: 201,
      body: { token: 'ghs_ForgedInstallationToken0123456789', expires_at: '2026-01-10T10:00:00Z' },
    }));
    github.intercept((request) =>
      request.path.endsWith('/access_tokens') ? { status: 307, headers: { Location: `${other.url}${request.path}` } } : undefined,
    );
    const error = await rejection(forge().remote(project({ appId: app.appId, privateKey: app.privateKey, installationId: app.installationId })));
    expect(error.code).toBe('forge_redirect_refused');
    expect(other.everythingReceived()).not.toMatch(/Bearer|eyJ/);
    expect(other.calls).toEqual([]);
  });

  test('a renamed repository (301 for GET, 307 for POST on the API origin) still gets its pull request', async () => {
    await pushBranch(forge(), project(), 'docwright/renamed');
    github.intercept((request) => {
      if (!request.path.startsWith('/repos/acme/old-docs/')) return undefined;
      const query = new URLSearchParams(request.query).toString();
      const moved = request.path.replace('/repos/acme/old-docs/', '/repos/acme/docs/');
      return { status: request.method === 'GET' ? 301 : 307, headers: { Location: `${github.url}${moved}${query ? `?${query}` : ''}` } };
    });
    const result = await forge().openOrUpdatePullRequest(project({ token: GITHUB_TOKEN }, 'https://github.com/acme/old-docs'), pr('docwright/renamed'));
    expect(result).toMatchObject({ number: 1, created: true });
    expect(github.pulls[0]).toMatchObject({ title: 'Docs: fix typos', head: { ref: 'docwright/renamed' } });
  });
});

describe('git remote redirects', () => {
  const auth: GitAuth = { username: 'oauth2', password: GITLAB_TOKEN };
  let redirector: Server;
  afterEach(async () => new Promise<void>((resolve) => redirector.close(() => resolve())));

  test('a remote that redirects to another host fails the clone; that host never sees the credential', async () => {
    createBareRepository(join(temp.path, 'other', 'acme', 'docs.git'));
    // The other host serves the repository to anyone, and would happily take a token too.
    const other = await startGitHttpServer({ root: join(temp.path, 'other') });
    redirector = createServer((request, response) => {
      response.writeHead(301, { Location: `${other.url}${request.url ?? '/'}` });
      response.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const remoteUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/acme/docs.git`;
    try {
      const outcome = prepareWorkspace({ remoteUrl, baseRef: 'main', branch: 'docwright/x', directory: join(temp.path, 'work'), auth });
      await outcome.catch(() => {});
      expect(other.requests.map((request) => request.authorization)).not.toContain(`Basic ${basicCredentials(auth)}`);
      const error = await rejection(outcome);
      expect(error.code).toBe('git_failed');
      expect(error.message).toContain('redirected');
    } finally {
      await other.close();
    }
  });
});

/** Pushes one commit to `branch` through the forge's own remote, as a job would. */
async function pushBranch(forge: GitHubForge | GitLabForge, project: ForgeProject, branch: string): Promise<void> {
  const { url, auth } = await forge.remote(project);
  const workspace = await prepareWorkspace({ remoteUrl: url, baseRef: 'main', branch, directory: join(temp.path, 'push', branch.replace('/', '-')), auth });
  writeFiles(workspace.directory, { 'page.md': `# ${branch}\n` });
  await workspace.commitAll({ message: 'Add a page' });
  await workspace.push();
  await workspace.remove();
}
