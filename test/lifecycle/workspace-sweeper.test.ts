import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import { randomBase62 } from '../../src/core/ids.js';
import { sweepWorkspaces } from '../../src/jobs/workspace-sweeper.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { processEnvironment, startDocwright, type DocwrightProcess } from '../helpers/docwright-process.js';

const LEASE_MS = 60_000;

/** A workspace as execute-turn.ts names it, with a file inside (a clone is never empty). */
function makeWorkspace(workspacesDir: string, jobId: string, sequence = 1): string {
  const name = `${jobId}-${sequence}-${randomBase62(6)}`;
  mkdirSync(join(workspacesDir, name, '.git'), { recursive: true });
  writeFileSync(join(workspacesDir, name, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return name;
}

describe.each(BACKENDS)('the workspace sweeper [%s]', (dialect) => {
  let t: TestApp;
  afterEach(async () => t.close());

  test('removes the workspaces no live lease owns, keeps those of runs in progress here or in any process, and anything not named like a workspace', async () => {
    t = await createTestApp(dialect);
    const project = await createTestProject(t.services);
    const job = async (lockedUntil: number | null) => {
      const { job: created } = await t.services.jobs.create(project, 'a prompt');
      await t.services.database.db
        .updateTable('job_queue')
        .set({ locked_by: lockedUntil === null ? null : 'another-host:1:abcdef', locked_until: lockedUntil })
        .where('job_id', '=', created.id)
        .execute();
      return created.id;
    };
    const now = t.clock.now();
    const leasedElsewhere = await job(now + 30_000);
    const renewalLate = await job(now - 5_000);
    const leaseLapsed = await job(now - LEASE_MS - 1);
    const released = await job(null);
    const runningHere = await job(null);
    const finished = 'F'.repeat(22);
    const workspacesDir = join(t.config.dataDir, 'workspaces');
    mkdirSync(workspacesDir, { recursive: true });
    const kept = [
      makeWorkspace(workspacesDir, leasedElsewhere),
      // An older turn's workspace of a job that runs again: kept while the job is leased.
      makeWorkspace(workspacesDir, leasedElsewhere, 2),
      makeWorkspace(workspacesDir, renewalLate),
      makeWorkspace(workspacesDir, runningHere),
      'README.txt',
      'not-a-workspace',
    ];
    writeFileSync(join(workspacesDir, 'README.txt'), 'an operator left this here\n');
    mkdirSync(join(workspacesDir, 'not-a-workspace'));
    const removed = [
      makeWorkspace(workspacesDir, leaseLapsed),
      makeWorkspace(workspacesDir, released),
      makeWorkspace(workspacesDir, finished),
      makeWorkspace(workspacesDir, finished, 3),
    ];

    const result = await sweepWorkspaces({
      workspacesDir,
      queue: t.services.queue,
      clock: t.clock,
      leaseMs: LEASE_MS,
      localJobIds: () => [runningHere],
      logger: createLogger({ level: 'silent' }),
    });
    expect(result.removed.sort()).toEqual(removed.sort());
    expect(result).toMatchObject({ kept: 4, failed: 0 });
    expect(readdirSync(workspacesDir).sort()).toEqual(kept.sort());
  });

  test('a missing workspaces directory is nothing to do', async () => {
    t = await createTestApp(dialect);
    const result = await sweepWorkspaces({
      workspacesDir: join(t.config.dataDir, 'workspaces'),
      queue: t.services.queue,
      clock: t.clock,
      leaseMs: LEASE_MS,
      localJobIds: () => [],
      logger: createLogger({ level: 'silent' }),
    });
    expect(result).toEqual({ removed: [], kept: 0, failed: 0 });
  });
});

describe('a worker process sweeps at start-up [sqlite]', () => {
  let t: TestApp;
  let worker: DocwrightProcess | undefined;
  afterEach(async () => {
    await worker?.kill();
    await t.close();
  });

  test("a crashed run's workspace is gone once `docwright worker` has started", async () => {
    t = await createTestApp('sqlite');
    const workspacesDir = join(t.config.dataDir, 'workspaces');
    mkdirSync(workspacesDir, { recursive: true });
    const orphan = makeWorkspace(workspacesDir, randomBase62(22));
    worker = await startDocwright({ args: ['worker'], env: processEnvironment(t.testDatabase, { DOCWRIGHT_PUBLIC_URL: 'http://docs.test' }) });
    const line = await worker.waitForLog('removed job workspaces that no live lease owns', 20_000);
    expect(line).toMatchObject({ removed: 1, kept: 0 });
    expect(existsSync(join(workspacesDir, orphan))).toBe(false);
  });
});
