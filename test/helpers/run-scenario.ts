import { execFileSync } from 'node:child_process';
import type { LightMyRequestResponse } from 'fastify';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/app/logger.js';
import type { Dialect } from '../../src/db/database.js';
import type { Job } from '../../src/jobs/job.js';
import { createJobWorker } from '../../src/jobs/start-job-worker.js';
import type { Project } from '../../src/projects/project.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { startFakeGitHubServer, type FakeGitHubServer, type FakeGitHubServerOptions } from '../fakes/fake-github-server.js';
import { startFakeGitLabServer, type FakeGitLabServer, type FakeGitLabServerOptions } from '../fakes/fake-gitlab-server.js';
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createDocsRepository, git } from './docs-repository.js';
import { createTestApp, type TestApp } from './test-app.js';
import { spawnWorker, type WorkerChild } from './worker-child.js';

export type ScenarioForge = 'local' | 'github' | 'gitlab';

const GITHUB_TOKEN = 'ghp_docwrightFencingToken0123456789';
const GITLAB_TOKEN = 'glpat-docwrightScenarioToken0123';

/** Settings of the fake forge beyond its repository and token. */
export interface ScenarioForgeOptions {
  github?: Omit<FakeGitHubServerOptions, 'tokens' | 'gitRoot'>;
  gitlab?: Omit<FakeGitLabServerOptions, 'tokens' | 'gitRoot'>;
}

/**
 * One job's run across processes: a test app (the API's services, used to create the job
 * and read the store), the fake model, the project's repository on the local forge or
 * behind the fake GitHub or GitLab, `docwright worker` children to kill or pause, and an in-process
 * rescuer worker to start afterwards. The children's leases last one second, so a
 * takeover is quick.
 */
export interface RunScenario {
  t: TestApp;
  model: FakeModelServer;
  /** Only for the GitHub forge. */
  github: FakeGitHubServer | null;
  /** Only for the GitLab forge. */
  gitlab: FakeGitLabServer | null;
  project: Project;
  /** The repository the job's branch is pushed to (the local repository, or GitHub's bare remote). */
  remote: string;
  /** The environment every worker of the scenario runs with. */
  environment: Record<string, string>;
  /** A `docwright worker` child with the scenario's environment (plus `overrides`). */
  spawnWorker(overrides?: Record<string, string>): WorkerChild;
  /** Starts a worker in the test process (after the child was killed or paused). */
  startRescuer(): WorkerPool;
  /** Branches of the remote, sorted. */
  branches(): string[];
  branchCommit(branch: string): string;
  /** How many pull requests the forge holds (for this project). */
  pullRequestCount(): Promise<number>;
  /** The prLink the job's first pull request must have. */
  expectedPrLink(): Promise<string>;
  waitForSettled(jobId: string, timeoutMs?: number): Promise<Job>;
  /** POST /v2/agent/{projectId}/job through the API, with an admin key of the project. */
  postJob(body: object): Promise<LightMyRequestResponse>;
  /** Resolves once a clone of the job's first turn is complete on disk. */
  waitForClone(jobId: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRunScenario(
  dialect: Dialect,
  forge: ScenarioForge,
  script: FakeModelScript,
  forgeOptions: ScenarioForgeOptions = {},
): Promise<RunScenario> {
  const model = await startFakeModelServer({ script });
  let github: FakeGitHubServer | null = null;
  let gitlab: FakeGitLabServer | null = null;
  let remote: string;
  const environment: Record<string, string> = {
    DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
    DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
    DOCWRIGHT_JOB_LEASE_SECONDS: '1',
    DOCWRIGHT_MODEL_RETRIES: '0',
    DOCWRIGHT_PUBLIC_URL: 'http://docs.test',
  };
  // A forge's repositories live as bare ones under its git root, at acme/docs.git.
  const gitRoot = forge === 'local' ? null : mkdtempSync(join(tmpdir(), `docwright-${forge}-`));
  if (gitRoot === null) {
    remote = createDocsRepository();
  } else {
    mkdirSync(join(gitRoot, 'acme'));
    remote = join(gitRoot, 'acme', 'docs.git');
    execFileSync('git', ['clone', '-q', '--bare', createDocsRepository(), remote]);
  }
  if (forge === 'github') {
    github = await startFakeGitHubServer({ ...forgeOptions.github, tokens: [GITHUB_TOKEN], gitRoot: gitRoot! });
    environment.DOCWRIGHT_GITHUB_API_URL = github.url;
    environment.DOCWRIGHT_GITHUB_GIT_URL = gitRoot!;
  } else if (forge === 'gitlab') {
    gitlab = await startFakeGitLabServer({ ...forgeOptions.gitlab, tokens: [GITLAB_TOKEN], gitRoot: gitRoot! });
    environment.DOCWRIGHT_GITLAB_API_URL = gitlab.apiUrl;
    environment.DOCWRIGHT_GITLAB_GIT_URL = gitRoot!;
  }
  const t = await createTestApp(dialect, environment, { clock: systemClock });
  const project =
    forge === 'local'
      ? await t.services.projects.create({ name: 'Docs', repository: remote, ref: 'main', forge: 'local', settings: {} })
      : await t.services.projects.create(
          { name: 'Acme Docs', repository: `https://${forge}.com/acme/docs`, ref: 'main', forge, settings: {} },
          { token: forge === 'github' ? GITHUB_TOKEN : GITLAB_TOKEN },
        );
  let adminKey: string | null = null;
  const children: WorkerChild[] = [];
  const rescuers: WorkerPool[] = [];
  const { db } = t.services.database;

  return {
    t,
    model,
    github,
    gitlab,
    project,
    remote,
    environment,
    spawnWorker(overrides = {}) {
      const child = spawnWorker(t.testDatabase, { ...environment, ...overrides });
      children.push(child);
      return child;
    },
    startRescuer() {
      // A long lease: a loaded machine must not let a live child take the job back from it.
      const rescuer = createJobWorker(t.services, createLogger({ level: 'silent' }), { leaseMs: 10_000, idlePollMs: 100 });
      rescuer.start();
      rescuers.push(rescuer);
      return rescuer;
    },
    branches: () => git(remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n').filter(Boolean).sort(),
    branchCommit: (branch) => git(remote, 'rev-parse', `refs/heads/${branch}`),
    async pullRequestCount() {
      if (github) return github.pulls.length;
      if (gitlab) return gitlab.mergeRequests.length;
      return (await db.selectFrom('local_pull_requests').select('number').where('project_id', '=', project.id).execute()).length;
    },
    async expectedPrLink() {
      if (github) return 'https://github.com/acme/docs/pull/1';
      if (gitlab) return 'https://gitlab.com/acme/docs/-/merge_requests/1';
      const pull = await db
        .selectFrom('local_pull_requests')
        .select('share_token')
        .where('project_id', '=', project.id)
        .where('number', '=', 1)
        .executeTakeFirstOrThrow();
      return `http://docs.test/projects/${project.id}/pulls/1?token=${pull.share_token}`;
    },
    async waitForSettled(jobId, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await t.services.jobRepository.get(project.id, jobId);
        if (job.status !== 'active') return job;
        if (Date.now() > deadline)
          throw new Error(`job ${jobId} still active after ${timeoutMs} ms; workers said: ${children.map((child) => child.log()).join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async postJob(body) {
      adminKey ??= (await t.services.keys.create({ projectId: project.id })).key;
      return t.app.inject({
        method: 'POST',
        url: `/v2/agent/${project.id}/job`,
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        payload: body,
      });
    },
    async waitForClone(jobId, timeoutMs = 30_000) {
      const workspaces = join(t.testDatabase.dataDir, 'workspaces');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // git writes the index last, when the checkout is complete.
        const names = existsSync(workspaces) ? readdirSync(workspaces).filter((name) => name.startsWith(`${jobId}-1-`)) : [];
        if (names.some((name) => existsSync(join(workspaces, name, '.git', 'index')))) return;
        if (Date.now() > deadline)
          throw new Error(`no clone of ${jobId} after ${timeoutMs} ms; workers said: ${children.map((child) => child.log()).join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      await Promise.all(children.map((child) => child.kill()));
      await Promise.all(rescuers.map((rescuer) => rescuer.stop(5_000)));
      await t.close();
      await model.close();
      await github?.close();
      await gitlab?.close();
    },
  };
}
