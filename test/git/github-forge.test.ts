import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { DocwrightError } from '../../src/core/errors.js';
import type { ForgeCredentials, ForgeProject } from '../../src/git/forges/forge.js';
import { GitHubForge, parseGitHubRepository } from '../../src/git/forges/github-forge.js';
import { prepareWorkspace } from '../../src/git/workspace.js';
import { startFakeGitHubServer, type FakeGitHubServer } from '../fakes/fake-github-server.js';
import { createBareRepository, fixtureGit, temporaryDirectory, writeFiles } from './git-fixtures.js';
import { rejection } from '../helpers/rejection.js';

const TOKEN = 'ghp_ProjectToken0123456789abcdefghijklmn';
const REPOSITORY = 'https://github.com/acme/docs';

let temp: ReturnType<typeof temporaryDirectory>;
let gitRoot: string;
let fake: FakeGitHubServer;
let clock: ManualClock;

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const APP = {
  appId: '123456',
  installationId: '789',
  privateKey: keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
};

beforeEach(async () => {
  temp = temporaryDirectory();
  gitRoot = join(temp.path, 'github');
  createBareRepository(join(gitRoot, 'acme', 'docs.git'));
  clock = new ManualClock(Date.UTC(2026, 0, 10, 9, 0, 0));
  fake = await startFakeGitHubServer({
    tokens: [TOKEN],
    gitRoot,
    apps: [{ appId: APP.appId, publicKey: keys.publicKey, installationId: APP.installationId }],
    now: () => clock.now(),
  });
});
afterEach(async () => {
  await fake.close();
  temp.cleanup();
});

function forge(): GitHubForge {
  return new GitHubForge({ apiBaseUrl: fake.url, gitBaseUrl: gitRoot, clock });
}

function project(credentials: ForgeCredentials | null = { token: TOKEN }, repository = REPOSITORY): ForgeProject {
  return { id: 'prj_1', repository, ref: 'main', credentials };
}

/** Pushes one commit to `branch` through the forge's remote, as a job would. */
async function pushBranch(target: GitHubForge, branch: string, file: string, credentials?: ForgeCredentials): Promise<void> {
  const { url, auth } = await target.remote(project(credentials));
  const workspace = await prepareWorkspace({ remoteUrl: url, baseRef: 'main', branch, directory: join(temp.path, 'work', `${branch}-${file}`), auth });
  writeFiles(workspace.directory, { [file]: `# ${file}\n` });
  await workspace.commitAll({ message: `Add ${file}` });
  await workspace.push();
  await workspace.remove();
}

const pr = (head: string, title = 'Docs: fix typos', body = 'Requested by a job.') => ({ base: 'main', head, title, body });

describe('parseGitHubRepository', () => {
  test.each([
    ['https://github.com/acme/docs', 'acme', 'docs'],
    ['https://github.com/acme/docs.git', 'acme', 'docs'],
    ['https://github.com/Acme-Corp/my.docs_site/', 'Acme-Corp', 'my.docs_site'],
  ])('%s', (repository, owner, name) => {
    expect(parseGitHubRepository(repository)).toEqual({ owner, name });
  });

  test.each([
    'http://github.com/acme/docs',
    'https://gitlab.com/acme/docs',
    'https://github.com/acme',
    'https://github.com/acme/docs/tree/main',
    'https://github.com/-acme/docs',
    'https://github.com/acme/..',
    'https://x:y@github.com/acme/docs',
    'https://github.com/acme/docs?tab=1',
    '/srv/docs',
    'git@github.com:acme/docs.git',
  ])('rejects %s', (repository) => {
    let caught: unknown;
    try {
      parseGitHubRepository(repository);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DocwrightError);
    expect((caught as DocwrightError).code).toBe('validation_failed');
    expect((caught as DocwrightError).errors?.[0]?.path).toBe('repository');
  });
});

describe('GitHubForge.remote', () => {
  test('maps the repository to the git base and authenticates as x-access-token', async () => {
    expect(await forge().remote(project())).toEqual({ url: join(gitRoot, 'acme', 'docs.git'), auth: { username: 'x-access-token', password: TOKEN } });
    const hosted = await new GitHubForge().remote(project());
    expect(hosted.url).toBe('https://github.com/acme/docs.git');
  });

  test('missing credentials are forge_not_configured', async () => {
    const error = await rejection(forge().remote(project(null)));
    expect(error.code).toBe('forge_not_configured');
    expect(error.message).toContain('prj_1');
    expect(error.message).toMatch(/token|GitHub App/);
    expect((await rejection(forge().openOrUpdatePullRequest(project(null), pr('docwright/x')))).code).toBe('forge_not_configured');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('GitHubForge.openOrUpdatePullRequest', () => {
  test('creates once, then updates the same pull request on follow-ups', async () => {
    const github = forge();
    await pushBranch(github, 'docwright/job-1', 'one.md');
    const first = await github.openOrUpdatePullRequest(project(), pr('docwright/job-1'));
    expect(first).toEqual({ number: 1, url: 'https://github.com/acme/docs/pull/1', created: true });
    expect(fake.pulls).toHaveLength(1);
    expect(fake.pulls[0]).toMatchObject({
      title: 'Docs: fix typos',
      body: 'Requested by a job.',
      state: 'open',
      head: { ref: 'docwright/job-1' },
      base: { ref: 'main' },
    });
    expect(fake.pulls[0]?.head.sha).toBe(fixtureGit(join(gitRoot, 'acme', 'docs.git'), 'rev-parse', 'docwright/job-1'));
    const lookup = fake.requests[0];
    expect(lookup).toMatchObject({ method: 'GET', path: '/repos/acme/docs/pulls', query: { state: 'open', head: 'acme:docwright/job-1' } });
    expect(lookup?.headers.authorization).toBe(`token ${TOKEN}`);

    await pushBranch(github, 'docwright/job-1', 'two.md');
    fake.requests.length = 0;
    const second = await github.openOrUpdatePullRequest(project(), pr('docwright/job-1', 'Docs: fix typos and links', 'Two turns.'));
    expect(second).toEqual({ number: 1, url: 'https://github.com/acme/docs/pull/1', created: false });
    expect(fake.pulls).toHaveLength(1);
    expect(fake.pulls[0]).toMatchObject({ title: 'Docs: fix typos and links', body: 'Two turns.' });
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /repos/acme/docs/pulls', 'PATCH /repos/acme/docs/pulls/1']);

    // Nothing new to say: no write at all.
    fake.requests.length = 0;
    await github.openOrUpdatePullRequest(project(), pr('docwright/job-1', 'Docs: fix typos and links', 'Two turns.'));
    expect(fake.requests.map((request) => request.method)).toEqual(['GET']);

    // Another job gets its own pull request.
    await pushBranch(github, 'docwright/job-2', 'three.md');
    expect(await github.openOrUpdatePullRequest(project(), pr('docwright/job-2'))).toMatchObject({ number: 2, created: true });
  });

  test('a 422 "already exists" from a race is resolved by updating the existing pull request', async () => {
    const github = forge();
    await pushBranch(github, 'docwright/race', 'a.md');
    await github.openOrUpdatePullRequest(project(), pr('docwright/race'));
    // The next lookup misses it, as if a concurrent worker created it just after we looked.
    const stop = fake.intercept((request) => (request.method === 'GET' && request.path.endsWith('/pulls') ? { status: 200, body: [] } : undefined));
    fake.intercept((request) => {
      if (request.method === 'POST') stop();
      return undefined;
    });
    fake.requests.length = 0;
    const result = await github.openOrUpdatePullRequest(project(), pr('docwright/race', 'Second title'));
    expect(result).toEqual({ number: 1, url: 'https://github.com/acme/docs/pull/1', created: false });
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /repos/acme/docs/pulls',
      'POST /repos/acme/docs/pulls',
      'GET /repos/acme/docs/pulls',
      'PATCH /repos/acme/docs/pulls/1',
    ]);
    expect(fake.pulls).toHaveLength(1);
    expect(fake.pulls[0]?.title).toBe('Second title');
  });

  test('a refusing fence (the run lost its lease) stops it after the lookup: nothing is created or changed', async () => {
    const github = forge();
    await pushBranch(github, 'docwright/fenced', 'a.md');
    const refuse = async (): Promise<void> => {
      throw new DocwrightError('lease_lost', 'The lease has passed to another worker.', { status: 409 });
    };
    fake.requests.length = 0;
    expect((await rejection(github.openOrUpdatePullRequest(project(), pr('docwright/fenced'), refuse))).code).toBe('lease_lost');
    expect(fake.pulls).toHaveLength(0);
    await github.openOrUpdatePullRequest(project(), pr('docwright/fenced'));
    expect((await rejection(github.openOrUpdatePullRequest(project(), pr('docwright/fenced', 'Stale title'), refuse))).code).toBe('lease_lost');
    expect(fake.pulls[0]?.title).toBe('Docs: fix typos');
    expect(fake.requests.map((request) => request.method)).toEqual(['GET', 'GET', 'POST', 'GET']);
  });

  test('concurrent calls for one branch leave exactly one pull request', async () => {
    const github = forge();
    await pushBranch(github, 'docwright/together', 'a.md');
    const results = await Promise.all([1, 2, 3].map(() => github.openOrUpdatePullRequest(project(), pr('docwright/together'))));
    expect(fake.pulls).toHaveLength(1);
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(results.map((result) => result.number))).toEqual(new Set([1]));
  });

  test('GitHub refusals become specific errors without the token', async () => {
    const github = forge();
    const badToken = await rejection(github.openOrUpdatePullRequest(project({ token: 'ghp_WrongWrongWrong0123456789abcdefghij' }), pr('docwright/x')));
    expect(badToken.code).toBe('forge_auth_failed');
    expect(badToken.message).toContain('Bad credentials');
    expect(badToken.message).not.toContain('ghp_WrongWrongWrong0123456789abcdefghij');

    const unknown = await rejection(github.openOrUpdatePullRequest(project({ token: TOKEN }, 'https://github.com/acme/missing'), pr('docwright/x')));
    expect(unknown.code).toBe('forge_repository_not_found');

    const noBranch = await rejection(github.openOrUpdatePullRequest(project(), pr('docwright/never-pushed')));
    expect(noBranch.code).toBe('forge_request_failed');
    expect(noBranch.message).toContain('head invalid');

    const unreachable = await rejection(
      new GitHubForge({ apiBaseUrl: 'http://127.0.0.1:1', gitBaseUrl: gitRoot }).openOrUpdatePullRequest(project(), pr('docwright/x')),
    );
    expect(unreachable.code).toBe('forge_unreachable');

    const badRepository = await rejection(github.openOrUpdatePullRequest(project({ token: TOKEN }, 'https://github.com/acme'), pr('docwright/x')));
    expect(badRepository.code).toBe('validation_failed');
    const badBranch = await rejection(github.openOrUpdatePullRequest(project(), pr('--head')));
    expect(badBranch.code).toBe('validation_failed');
  });
});

describe('GitHub App installation auth', () => {
  const appCredentials = { appId: APP.appId, privateKey: APP.privateKey, installationId: APP.installationId };
  const exchanges = () => fake.requests.filter((request) => request.path === `/app/installations/${APP.installationId}/access_tokens`);

  test('exchanges a signed JWT for an installation token, caches it and renews it before expiry', async () => {
    const github = forge();
    await pushBranch(github, 'docwright/app', 'app.md', appCredentials);
    const result = await github.openOrUpdatePullRequest(project(appCredentials), pr('docwright/app'));
    expect(result.created).toBe(true);
    expect(fake.pulls[0]?.user).toMatchObject({ login: `app-${APP.appId}[bot]`, type: 'Bot' });
    expect(exchanges()).toHaveLength(1);
    expect(exchanges()[0]?.headers.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/i);
    const firstToken = fake.issuedTokens[0]?.token;
    expect((await github.remote(project(appCredentials))).auth).toEqual({ username: 'x-access-token', password: firstToken });
    const pullRequests = fake.requests.filter((request) => request.path.endsWith('/pulls'));
    expect(pullRequests.every((request) => request.headers.authorization === `token ${firstToken}`)).toBe(true);

    clock.advance(50 * 60_000);
    await github.remote(project(appCredentials));
    expect(exchanges()).toHaveLength(1);
    clock.advance(6 * 60_000);
    const renewed = await github.remote(project(appCredentials));
    expect(exchanges()).toHaveLength(2);
    expect(renewed.auth?.password).toBe(fake.issuedTokens[1]?.token);
    expect(renewed.auth?.password).not.toBe(firstToken);
  });

  test('a revoked installation token is replaced once', async () => {
    const github = forge();
    await pushBranch(github, 'docwright/revoked', 'r.md', appCredentials);
    const token = (await github.remote(project(appCredentials))).auth?.password ?? '';
    fake.revokeToken(token);
    expect((await github.openOrUpdatePullRequest(project(appCredentials), pr('docwright/revoked'))).created).toBe(true);
    expect(exchanges()).toHaveLength(2);
  });

  test('a key GitHub does not know, or no key at all, fails clearly without leaking the key', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const wrongKey = await rejection(forge().remote(project({ ...appCredentials, privateKey: other })));
    expect(wrongKey.code).toBe('forge_auth_failed');
    expect(wrongKey.message).toContain('JSON web token could not be decoded');

    const wrongInstallation = await rejection(forge().remote(project({ ...appCredentials, installationId: '999' })));
    expect(wrongInstallation.code).toBe('forge_auth_failed');
    expect(wrongInstallation.message).toContain('no installation 999');

    const garbage = await rejection(forge().remote(project({ ...appCredentials, privateKey: 'not a key at all, secret-ish text' })));
    expect(garbage.code).toBe('forge_not_configured');
    expect(garbage.message).not.toContain('secret-ish');
  });
});
