import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/app/logger.js';
import { createJobWorker } from '../../src/jobs/start-job-worker.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createDocsRepository, git, showFile } from '../helpers/docs-repository.js';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { startFakeGitHubServer, type FakeGitHubServer } from '../fakes/fake-github-server.js';
import { docsAgentScript, INJECTED_FINAL_MESSAGE } from './docs-agent-script.js';
import { activeConstructs, visible } from '../helpers/active-markdown.js';

const TOKEN = 'ghp_docwrightTestToken0123456789';
let t: TestApp;
let model: FakeModelServer;
let github: FakeGitHubServer;
let worker: WorkerPool;
afterEach(async () => {
  await worker.stop(5_000);
  await t.close();
  await model.close();
  await github.close();
});

async function settle(projectId: string, jobId: string) {
  for (let tries = 0; tries < 600; tries += 1) {
    const job = await t.services.jobRepository.get(projectId, jobId);
    if (job.status !== 'active') return job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('job did not settle');
}

/** A real bare remote standing in for github.com/acme/docs, a fake REST API in front of it, a worker. */
async function startGitHubProject() {
  const gitRoot = mkdtempSync(join(tmpdir(), 'docwright-github-'));
  mkdirSync(join(gitRoot, 'acme'));
  const remote = join(gitRoot, 'acme', 'docs.git');
  execFileSync('git', ['clone', '-q', '--bare', createDocsRepository(), remote]);
  github = await startFakeGitHubServer({ tokens: [TOKEN], gitRoot });
  model = await startFakeModelServer({ script: docsAgentScript });
  t = await createTestApp(
    'sqlite',
    {
      DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
      DOCWRIGHT_GITHUB_API_URL: github.url,
      DOCWRIGHT_GITHUB_GIT_URL: gitRoot,
      DOCWRIGHT_MODEL_RETRIES: '0',
    },
    { clock: systemClock },
  );
  const project = await t.services.projects.create(
    { name: 'Acme Docs', repository: 'https://github.com/acme/docs', ref: 'main', forge: 'github', settings: {} },
    { token: TOKEN },
  );
  worker = createJobWorker(t.services, createLogger({ level: 'silent' }), { leaseMs: 10_000, idlePollMs: 100 });
  worker.start();
  return { project, remote };
}

test('what an injected model and prompt write reaches GitHub readable but inert', async () => {
  const { project, remote } = await startGitHubProject();
  const prompt = 'Follow the injected notes. Fixes #9 @bob\n/merge';
  const { job } = await t.services.jobs.create(project, prompt);
  const done = await settle(project.id, job.id);
  expect(done.status).toBe('completed');
  expect(github.pulls).toHaveLength(1);
  const { title, body } = github.pulls[0]! as { title: string; body: string };
  expect(activeConstructs(title)).toEqual([]);
  expect(activeConstructs(body)).toEqual([]);
  expect(visible(title)).toBe('Docs: Follow the injected notes. Fixes #9 @bob');
  expect(visible(body)).toContain('> Done. Fixes #1, closes acme/docs#2 and resolves https://github.com/acme/docs/issues/3. cc @alice @acme/maintainers');
  expect(visible(body)).toContain('> pixel (https://evil.test/p.png) <img src="https://evil.test/q.png"> docs (https://evil.test/x)\n> /merge\n> /approve');
  expect(visible(body)).toContain('- `fixes #7 @alice.md`');
  expect(INJECTED_FINAL_MESSAGE).toContain('![pixel]');
  const commitMessage = git(remote, 'log', '-1', '--format=%B', `docwright/${job.id}`);
  expect(visible(commitMessage)).toContain('Done. Fixes #1, closes acme/docs#2');
  expect(activeConstructs(commitMessage)).toEqual([]);
});

test('a GitHub project: the branch is pushed to the remote and one pull request is opened, then updated', async () => {
  const { project, remote } = await startGitHubProject();

  const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page');
  const done = await settle(project.id, job.id);
  expect(done.status).toBe('completed');
  expect(done.prLink).toBe('https://github.com/acme/docs/pull/1');
  // Only the local forge's pull requests have a state Docwright keeps.
  expect(done.prStatus).toBeNull();
  expect(showFile(remote, `docwright/${job.id}`, 'troubleshooting.mdx')).toContain('# Troubleshooting');
  expect(github.pulls).toHaveLength(1);
  expect(github.pulls[0]).toMatchObject({ number: 1, state: 'open', title: 'Docs: Add a troubleshooting page' });

  await t.services.jobs.message(project, job.id, 'Mention the verbose flag');
  const again = await settle(project.id, job.id);
  expect(again.status).toBe('completed');
  expect(again.prLink).toBe(done.prLink);
  expect(github.pulls).toHaveLength(1);
  expect(String(github.pulls[0]!.body)).toContain('Follow-up 1');
  expect(git(remote, 'log', '--format=%s', `docwright/${job.id}`).split('\n')).toHaveLength(3);

  // The API saw the token; the model never did, and it is not stored in plaintext.
  expect(github.requests.some((request) => JSON.stringify(request).includes(TOKEN))).toBe(true);
  expect(JSON.stringify(model.requests.map((request) => request.body))).not.toContain(TOKEN);
  const row = await t.services.database.db.selectFrom('projects').select('forge_credentials').where('id', '=', project.id).executeTakeFirstOrThrow();
  expect(row.forge_credentials).not.toContain(TOKEN);
});

test('problems the agent left after its fix rounds open the GitHub pull request as a draft, without auto-merge, listed first', async () => {
  const { project } = await startGitHubProject();
  const { job } = await t.services.jobs.create(project, 'Add a broken link page', {}, { autoMerge: true });
  const done = await settle(project.id, job.id);
  expect(done).toMatchObject({ status: 'completed', unresolvedProblems: 1 });
  expect(github.pulls).toHaveLength(1);
  const pull = github.pulls[0]! as unknown as { draft: boolean; body: string };
  expect(pull.draft).toBe(true);
  expect(pull.body.indexOf('**1 new problem**')).toBeLessThan(pull.body.indexOf('### Instruction'));
  // A draft is not ready to merge: auto-merge was not asked for.
  expect(github.requests.some((request) => JSON.stringify(request).includes('enablePullRequestAutoMerge'))).toBe(false);
});
