import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { ForgeProject, PullRequestControls } from '../../src/git/forges/forge.js';
import { GitHubForge } from '../../src/git/forges/github-forge.js';
import { GitLabForge } from '../../src/git/forges/gitlab-forge.js';
import { startFakeGitHubServer, type FakeGitHubServer } from '../fakes/fake-github-server.js';
import { startFakeGitLabServer, type FakeGitLabServer } from '../fakes/fake-gitlab-server.js';
import { createBareRepository, fixtureGit, temporaryDirectory, writeFiles } from './git-fixtures.js';

/**
 * A retry after a worker died between opening the pull request and recording it finds the
 * pull request open and not recorded: the controls that attempt may not have applied are
 * applied then, and applying them twice changes nothing. A follow-up (recorded) gets none.
 */
const TOKEN = 'glpat-ReviewControls0123456789abc';

let temp: ReturnType<typeof temporaryDirectory>;
let gitRoot: string;

function pushBranch(bare: string, branch: string): void {
  const work = join(temp.path, `work-${branch.replaceAll('/', '-')}`);
  fixtureGit(temp.path, 'clone', '--quiet', bare, work);
  fixtureGit(work, 'checkout', '--quiet', '-b', branch);
  writeFiles(work, { 'page.md': '# Page\n' });
  fixtureGit(work, 'add', '--all');
  fixtureGit(work, 'commit', '--quiet', '-m', 'Add page');
  fixtureGit(work, 'push', '--quiet', 'origin', branch);
}

const request = (controls?: PullRequestControls, recordedNumber?: number | null) => ({
  base: 'main',
  head: 'docwright/job-1',
  title: 'Docs: add a page',
  body: 'From a job.',
  ...(controls ? { controls } : {}),
  ...(recordedNumber === undefined ? {} : { recordedNumber }),
});

beforeEach(() => {
  temp = temporaryDirectory();
  gitRoot = join(temp.path, 'remote');
});
afterEach(() => temp.cleanup());

describe('GitHub: controls on a pull request a crashed attempt opened', () => {
  let fake: FakeGitHubServer;
  beforeEach(async () => {
    pushBranch(createBareRepository(join(gitRoot, 'acme', 'docs.git')), 'docwright/job-1');
    fake = await startFakeGitHubServer({ tokens: [TOKEN], gitRoot });
  });
  afterEach(() => fake.close());

  test('applied on adoption when not recorded, once in effect; not on a follow-up', async () => {
    const forge = new GitHubForge({ apiBaseUrl: fake.url, gitBaseUrl: gitRoot });
    const project: ForgeProject = { id: 'prj', repository: 'https://github.com/acme/docs', ref: 'main', credentials: { token: TOKEN } };
    const controls: PullRequestControls = { reviewers: ['alice'], labels: ['docs'], autoMerge: true };
    // The attempt that died opened the pull request and got no further.
    expect(await forge.openOrUpdatePullRequest(project, request())).toMatchObject({ number: 1, created: true });
    expect(fake.pulls[0]).toMatchObject({ labels: [], requested_reviewers: [], auto_merge: null });

    expect(await forge.openOrUpdatePullRequest(project, request(controls, null))).toEqual({
      number: 1,
      url: 'https://github.com/acme/docs/pull/1',
      created: false,
    });
    expect(fake.pulls[0]).toMatchObject({ labels: [{ name: 'docs' }], requested_reviewers: [{ login: 'alice', type: 'User' }] });
    expect(fake.pulls[0]?.auto_merge).toMatchObject({ merge_method: 'merge' });

    // Another retry: the same requests are harmless, and auto-merge already on is not asked again.
    const before = fake.requests.length;
    await forge.openOrUpdatePullRequest(project, request(controls, null));
    const again = fake.requests.slice(before).map((entry) => `${entry.method} ${entry.path}`);
    expect(again).toEqual(['GET /repos/acme/docs/pulls', 'POST /repos/acme/docs/pulls/1/requested_reviewers', 'POST /repos/acme/docs/issues/1/labels']);
    expect(fake.pulls[0]).toMatchObject({ labels: [{ name: 'docs' }], requested_reviewers: [{ login: 'alice', type: 'User' }] });

    // A follow-up of a job that recorded #1: nothing but the lookup.
    const followUp = fake.requests.length;
    await forge.openOrUpdatePullRequest(project, request(controls, 1));
    expect(fake.requests.slice(followUp).map((entry) => `${entry.method} ${entry.path}`)).toEqual(['GET /repos/acme/docs/pulls']);
  });
});

describe('GitLab: controls on a merge request a crashed attempt opened, and the mergeability race', () => {
  let fake: FakeGitLabServer;
  const users = [
    { id: 21, username: 'alice' },
    { id: 22, username: 'bob' },
  ];
  beforeEach(() => pushBranch(createBareRepository(join(gitRoot, 'acme', 'docs.git')), 'docwright/job-1'));
  afterEach(() => fake.close());

  const project: ForgeProject = { id: 'prj', repository: 'https://gitlab.com/acme/docs', ref: 'main', credentials: { token: TOKEN } };

  test('labels added, reviewers kept and added, auto-merge set; twice changes nothing; a follow-up adds nothing', async () => {
    fake = await startFakeGitLabServer({ tokens: [TOKEN], gitRoot, users });
    const forge = new GitLabForge({ apiBaseUrl: fake.apiUrl, gitBaseUrl: gitRoot });
    expect(await forge.openOrUpdatePullRequest(project, request())).toMatchObject({ number: 1, created: true });
    const mergeRequest = fake.mergeRequests[0]!;
    // Someone added bob meanwhile: reviewer_ids replaces the list on GitLab, so he must be kept.
    mergeRequest.reviewers = [{ id: 22, username: 'bob' }];

    const controls: PullRequestControls = { reviewers: ['alice'], labels: ['docs', 'agent'], autoMerge: true };
    expect(await forge.openOrUpdatePullRequest(project, request(controls, null))).toEqual({
      number: 1,
      url: 'https://gitlab.com/acme/docs/-/merge_requests/1',
      created: false,
    });
    const put = fake.requests.find((entry) => entry.method === 'PUT' && entry.path.endsWith('/merge_requests/1'));
    expect(put?.body).toEqual({ add_labels: 'docs,agent', reviewer_ids: [22, 21] });
    expect(mergeRequest).toMatchObject({ labels: ['docs', 'agent'], merge_when_pipeline_succeeds: true });
    expect((mergeRequest.reviewers as Array<{ id: number }>).map((user) => user.id)).toEqual([21, 22]);

    const before = fake.requests.length;
    await forge.openOrUpdatePullRequest(project, request(controls, null));
    expect(fake.requests.slice(before).map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      'GET /api/v4/projects/acme%2Fdocs/merge_requests',
      'GET /api/v4/users',
    ]);

    const followUp = fake.requests.length;
    await forge.openOrUpdatePullRequest(project, request(controls, 1));
    expect(fake.requests.slice(followUp).map((entry) => `${entry.method} ${entry.path}`)).toEqual(['GET /api/v4/projects/acme%2Fdocs/merge_requests']);
  });

  test('while GitLab still checks a new merge request (405), the merge call is tried again until GitLab is done', async () => {
    fake = await startFakeGitLabServer({ tokens: [TOKEN], gitRoot, mergeChecksPending: 2 });
    const forge = new GitLabForge({ apiBaseUrl: fake.apiUrl, gitBaseUrl: gitRoot, autoMerge: { attempts: 3, delayMs: 5 } });
    const result = await forge.openOrUpdatePullRequest(project, request({ autoMerge: true }));
    expect(result).toEqual({ number: 1, url: 'https://gitlab.com/acme/docs/-/merge_requests/1', created: true });
    expect(fake.requests.filter((entry) => entry.path.endsWith('/merge'))).toHaveLength(3);
    expect(fake.mergeRequests[0]).toMatchObject({ merge_when_pipeline_succeeds: true });
  });

  test('still checking after every try: the merge request stands, with a warning', async () => {
    fake = await startFakeGitLabServer({ tokens: [TOKEN], gitRoot, mergeChecksPending: 5 });
    const forge = new GitLabForge({ apiBaseUrl: fake.apiUrl, gitBaseUrl: gitRoot, autoMerge: { attempts: 3, delayMs: 5 } });
    const result = await forge.openOrUpdatePullRequest(project, request({ autoMerge: true }));
    expect(result).toMatchObject({ number: 1, created: true, warnings: [expect.stringMatching(/HTTP 405 .*Auto-merge is not set/)] });
    expect(fake.requests.filter((entry) => entry.path.endsWith('/merge'))).toHaveLength(3);
    expect(fake.mergeRequests[0]).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: false });
  });
});
