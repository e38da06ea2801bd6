import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DocwrightError } from '../../src/core/errors.js';
import type { ForgeCredentials, ForgeProject } from '../../src/git/forges/forge.js';
import { GitLabForge, parseGitLabRepository } from '../../src/git/forges/gitlab-forge.js';
import { prepareWorkspace } from '../../src/git/workspace.js';
import { startFakeGitLabServer, type FakeGitLabServer } from '../fakes/fake-gitlab-server.js';
import { createBareRepository, temporaryDirectory, writeFiles } from './git-fixtures.js';
import { startGitHttpServer, type GitHttpServer } from './git-http-server.js';
import { rejection } from '../helpers/rejection.js';

const TOKEN = 'glpat-ProjectToken0123456789abcd';
const REPOSITORY = 'https://gitlab.com/acme/handbook/docs';

let temp: ReturnType<typeof temporaryDirectory>;
let gitRoot: string;
let api: FakeGitLabServer;
let git: GitHttpServer;

beforeEach(async () => {
  temp = temporaryDirectory();
  gitRoot = join(temp.path, 'gitlab');
  createBareRepository(join(gitRoot, 'acme', 'handbook', 'docs.git'));
  api = await startFakeGitLabServer({ tokens: [TOKEN], gitRoot });
  // Real smart HTTP that only accepts GitLab's token convention: user "oauth2", password = token.
  git = await startGitHttpServer({ root: gitRoot, username: 'oauth2', password: TOKEN });
});
afterEach(async () => {
  await api.close();
  await git.close();
  temp.cleanup();
});

const forge = () => new GitLabForge({ apiBaseUrl: api.apiUrl, gitBaseUrl: git.url });
const project = (credentials: ForgeCredentials | null = { token: TOKEN }, repository = REPOSITORY): ForgeProject => ({
  id: 'prj_gl',
  repository,
  ref: 'main',
  credentials,
});
const mr = (head: string, title = 'Docs: clarify setup', body = 'From a job.') => ({ base: 'main', head, title, body });

async function pushBranch(branch: string, file: string): Promise<void> {
  const { url, auth } = await forge().remote(project());
  const workspace = await prepareWorkspace({ remoteUrl: url, baseRef: 'main', branch, directory: join(temp.path, 'work', `${branch}-${file}`), auth });
  writeFiles(workspace.directory, { [file]: `# ${file}\n` });
  await workspace.commitAll({ message: `Add ${file}` });
  await workspace.push();
  await workspace.remove();
}

describe('parseGitLabRepository', () => {
  test('accepts nested groups and strips .git', () => {
    expect(parseGitLabRepository('https://gitlab.com/acme/handbook/docs.git')).toEqual({ path: 'acme/handbook/docs', segments: ['acme', 'handbook', 'docs'] });
    expect(parseGitLabRepository('https://git.example.com/team/docs', 'https://git.example.com').path).toBe('team/docs');
  });

  test.each([
    'https://gitlab.com/docs',
    'https://gitlab.com/acme/docs/-/tree/main',
    'https://github.com/acme/docs',
    'https://gitlab.com/acme/../docs',
    'gitlab.com/acme/docs',
  ])('rejects %s', (repository) => {
    expect(() => parseGitLabRepository(repository)).toThrow(DocwrightError);
  });
});

describe('GitLabForge', () => {
  test('pushes over HTTP with oauth2 token auth, then opens and updates one merge request', async () => {
    const remote = await forge().remote(project());
    expect(remote).toEqual({ url: `${git.url}/acme/handbook/docs.git`, auth: { username: 'oauth2', password: TOKEN } });
    await pushBranch('docwright/job-1', 'one.md');
    expect(git.requests.some((request) => request.url.includes('git-receive-pack') && request.status === 200)).toBe(true);

    const first = await forge().openOrUpdatePullRequest(project(), mr('docwright/job-1'));
    expect(first).toEqual({ number: 1, url: 'https://gitlab.com/acme/handbook/docs/-/merge_requests/1', created: true });
    expect(api.requests[0]).toMatchObject({
      method: 'GET',
      path: '/api/v4/projects/acme%2Fhandbook%2Fdocs/merge_requests',
      query: { state: 'opened', source_branch: 'docwright/job-1' },
    });
    expect(api.requests[0]?.headers['private-token']).toBe(TOKEN);
    expect(api.mergeRequests[0]).toMatchObject({ title: 'Docs: clarify setup', description: 'From a job.', target_branch: 'main' });

    await pushBranch('docwright/job-1', 'two.md');
    api.requests.length = 0;
    const second = await forge().openOrUpdatePullRequest(project(), mr('docwright/job-1', 'Docs: clarify setup and FAQ', 'Two turns.'));
    expect(second).toEqual({ number: 1, url: first.url, created: false });
    expect(api.requests.map((request) => request.method)).toEqual(['GET', 'PUT']);
    expect(api.mergeRequests).toHaveLength(1);
    expect(api.mergeRequests[0]).toMatchObject({ title: 'Docs: clarify setup and FAQ', description: 'Two turns.' });
  });

  test('a 409 "already exists" race resolves to the existing merge request', async () => {
    await pushBranch('docwright/race', 'a.md');
    await forge().openOrUpdatePullRequest(project(), mr('docwright/race'));
    const stop = api.intercept((request) => (request.method === 'GET' ? { status: 200, body: [] } : undefined));
    api.intercept((request) => {
      if (request.method === 'POST') stop();
      return undefined;
    });
    api.requests.length = 0;
    const result = await forge().openOrUpdatePullRequest(project(), mr('docwright/race', 'Renamed'));
    expect(result).toMatchObject({ number: 1, created: false });
    expect(api.requests.map((request) => request.method)).toEqual(['GET', 'POST', 'GET', 'PUT']);
    expect(api.mergeRequests).toHaveLength(1);
  });

  test('a refusing fence (the run lost its lease) stops it after the lookup: nothing is created or changed', async () => {
    await pushBranch('docwright/fenced', 'a.md');
    const refuse = async (): Promise<void> => {
      throw new DocwrightError('lease_lost', 'The lease has passed to another worker.', { status: 409 });
    };
    expect((await rejection(forge().openOrUpdatePullRequest(project(), mr('docwright/fenced'), refuse))).code).toBe('lease_lost');
    expect(api.mergeRequests).toHaveLength(0);
    await forge().openOrUpdatePullRequest(project(), mr('docwright/fenced'));
    expect((await rejection(forge().openOrUpdatePullRequest(project(), mr('docwright/fenced', 'Stale title'), refuse))).code).toBe('lease_lost');
    expect(api.mergeRequests[0]?.title).toBe('Docs: clarify setup');
    expect(api.requests.map((request) => request.method)).toEqual(['GET', 'GET', 'POST', 'GET']);
  });

  test('the fake lists like GitLab: state (all when omitted), source_branch, pages with X-Total and X-Next-Page', async () => {
    await pushBranch('docwright/a', 'a.md');
    await pushBranch('docwright/b', 'b.md');
    await forge().openOrUpdatePullRequest(project(), mr('docwright/a'));
    await forge().openOrUpdatePullRequest(project(), mr('docwright/b'));
    const list = (query: string) => fetch(`${api.apiUrl}/projects/acme%2Fhandbook%2Fdocs/merge_requests?${query}`, { headers: { 'PRIVATE-TOKEN': TOKEN } });
    const first = await list('per_page=1');
    expect(((await first.json()) as Array<{ iid: number }>).map((request) => request.iid)).toEqual([2]);
    expect([first.headers.get('x-total'), first.headers.get('x-page'), first.headers.get('x-next-page')]).toEqual(['2', '1', '2']);
    expect(((await (await list('state=opened&source_branch=docwright%2Fa')).json()) as Array<{ iid: number }>).map((request) => request.iid)).toEqual([1]);
    expect((await list('state=open')).status).toBe(400);
  });

  test('errors: missing token, bad token, unknown project, unknown branch', async () => {
    expect((await rejection(forge().remote(project(null)))).code).toBe('forge_not_configured');
    expect((await rejection(forge().remote(project({ appId: '1', privateKey: 'k', installationId: '2' })))).code).toBe('forge_not_configured');

    const badToken = await rejection(forge().openOrUpdatePullRequest(project({ token: 'glpat-WrongWrongWrong0123456789' }), mr('docwright/x')));
    expect(badToken.code).toBe('forge_auth_failed');
    expect(badToken.message).toContain('401 Unauthorized');
    expect(badToken.message).not.toContain('glpat-WrongWrongWrong0123456789');

    expect((await rejection(forge().openOrUpdatePullRequest(project({ token: TOKEN }, 'https://gitlab.com/acme/missing'), mr('docwright/x')))).code).toBe(
      'forge_repository_not_found',
    );

    const noBranch = await rejection(forge().openOrUpdatePullRequest(project(), mr('docwright/never-pushed')));
    expect(noBranch.code).toBe('forge_request_failed');
    expect(noBranch.message).toContain('Source branch "docwright/never-pushed" does not exist');

    const unreachable = await rejection(new GitLabForge({ apiBaseUrl: 'http://127.0.0.1:1/api/v4' }).openOrUpdatePullRequest(project(), mr('docwright/x')));
    expect(unreachable.code).toBe('forge_unreachable');
  });
});
