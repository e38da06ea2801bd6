import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/app/logger.js';
import { createJobWorker } from '../../src/jobs/start-job-worker.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { startFakeGitHubServer, type FakeGitHubServer } from '../fakes/fake-github-server.js';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { runCli } from '../helpers/run-cli.js';
import { TEST_SECRET, createTestApp, type TestApp } from '../helpers/test-app.js';
import { BACKENDS } from '../helpers/test-database.js';
import { docsAgentScript } from './docs-agent-script.js';

/**
 * Someone who can write the database but does not know DOCWRIGHT_SECRET copies project A's
 * sealed token into project B's row. B's job must fail on it, not run with A's token.
 */
const TOKEN_A = 'ghp_ProjectAToken0123456789abcdefghijkl';
const TOKEN_B = 'ghp_ProjectBToken0123456789abcdefghijkl';

describe.each(BACKENDS)("a job never uses another project's credentials [%s]", (dialect) => {
  let t: TestApp | undefined;
  let model: FakeModelServer | undefined;
  let github: FakeGitHubServer | undefined;
  let worker: WorkerPool | undefined;
  let scratch: string | undefined;
  afterEach(async () => {
    await worker?.stop(5_000);
    await t?.close();
    await model?.close();
    await github?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  test("B's job fails with secret_unreadable when B's row holds A's sealed token", async () => {
    scratch = mkdtempSync(join(tmpdir(), 'docwright-binding-'));
    const gitRoot = join(scratch, 'github');
    mkdirSync(join(gitRoot, 'acme'), { recursive: true });
    execFileSync('git', ['clone', '-q', '--bare', createDocsRepository(), join(gitRoot, 'acme', 'docs.git')]);
    github = await startFakeGitHubServer({ tokens: [TOKEN_A, TOKEN_B], gitRoot });
    model = await startFakeModelServer({ script: docsAgentScript });
    t = await createTestApp(
      dialect,
      {
        DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
        DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
        DOCWRIGHT_GITHUB_API_URL: github.url,
        DOCWRIGHT_GITHUB_GIT_URL: gitRoot,
        DOCWRIGHT_MODEL_RETRIES: '0',
      },
      { clock: systemClock },
    );

    // The projects are made the way an operator makes them: with the CLI and a token file.
    const environment: Record<string, string> = {
      DOCWRIGHT_DATA_DIR: t.config.dataDir,
      DOCWRIGHT_SECRET: TEST_SECRET,
      ...(dialect === 'postgres' ? { DOCWRIGHT_DATABASE_URL: t.testDatabase.location } : {}),
    };
    const createProject = async (name: string, token: string): Promise<string> => {
      const tokenFile = join(scratch!, `${name}.token`);
      writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
      const result = await runCli(
        ['projects', 'create', '--name', name, '--repository', 'https://github.com/acme/docs', '--token-file', tokenFile, '--json'],
        environment,
      );
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { id: string }).id;
    };
    const a = await createProject('A', TOKEN_A);
    const b = await createProject('B', TOKEN_B);
    const db = t.services.database.db;
    const sealedA = (await db.selectFrom('projects').select('forge_credentials').where('id', '=', a).executeTakeFirstOrThrow()).forge_credentials;
    await db.updateTable('projects').set({ forge_credentials: sealedA }).where('id', '=', b).execute();

    worker = createJobWorker(t.services, createLogger({ level: 'silent' }), { leaseMs: 10_000, idlePollMs: 100 });
    worker.start();
    const projectB = await t.services.projects.get(b);
    const { job } = await t.services.jobs.create(projectB, 'Add a troubleshooting page');
    let done = await t.services.jobRepository.get(b, job.id);
    for (let tries = 0; done.status === 'active' && tries < 1_200; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      done = await t.services.jobRepository.get(b, job.id);
    }

    expect(JSON.stringify(github.requests)).not.toContain(TOKEN_A);
    expect(github.pulls).toEqual([]);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('secret_unreadable');
    expect(done.error?.message).toContain('sealed for another one');
  });
});
