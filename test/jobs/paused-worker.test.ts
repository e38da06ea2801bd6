import { afterEach, describe, expect, test } from 'vitest';
import type { Dialect } from '../../src/db/database.js';
import type { FakeModelScript } from '../fakes/fake-model-server.js';
import { startRunScenario, type RunScenario, type ScenarioForge } from '../helpers/run-scenario.js';
import type { WorkerChild } from '../helpers/worker-child.js';
import { docsAgentScript } from './docs-agent-script.js';

/**
 * Issue 12, test 2: a `docwright worker` child is paused (SIGSTOP) past its lease with
 * its last model answer waiting in its socket; another worker takes the job over; the
 * first is resumed (SIGCONT) while the second is still running the turn. Everything the
 * first then tries to write is refused by the database, and the job ends with the second
 * worker's branch and exactly one pull request.
 *
 * Two ways past the lease:
 * - `waited out`: a one-second lease and a pause of 1.5 s. On resuming, the overdue lease
 *   renewal and the first write race; whichever notices first stops the run.
 * - `renewal not due`: a 60-second lease that the database already counts as expired (the
 *   test moves its expiry into the past, as if the pause had lasted a minute). The renewal
 *   is not due when the worker resumes, so its next write runs first and only the fence
 *   stands between it and the job: the log must say a write was refused.
 */
type Pause = 'waited out' | 'renewal not due';
const CASES: Array<[Dialect, ScenarioForge, Pause]> = [
  ['postgres', 'local', 'waited out'],
  ['postgres', 'github', 'waited out'],
  ['postgres', 'local', 'renewal not due'],
  ['postgres', 'github', 'renewal not due'],
  ['sqlite', 'local', 'renewal not due'],
  ['sqlite', 'github', 'renewal not due'],
];

/** The docs agent's script makes four tool rounds; the request after them gets the final answer. */
const FINAL_ROUND = 4;

describe('a worker paused (SIGSTOP) past its lease, then resumed', () => {
  let scenario: RunScenario | null = null;
  afterEach(async () => {
    await scenario?.close();
    scenario = null;
  });

  test.each(CASES)('[%s, %s forge, lease %s] its writes are refused and nothing is duplicated', async (dialect, forge, pause) => {
    let stale: WorkerChild | null = null;
    let phase: 'first worker' | 'second worker' = 'first worker';
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let reportHeld: () => void = () => {};
    const secondHeld = new Promise<void>((resolve) => (reportHeld = resolve));
    const script: FakeModelScript = async (request, callIndex) => {
      if (request.toolRounds === FINAL_ROUND && phase === 'first worker') {
        // Its changes are all in its clone; the final answer reaches it only after SIGCONT.
        stale!.process.kill('SIGSTOP');
        phase = 'second worker';
      } else if (request.toolRounds === FINAL_ROUND) {
        reportHeld();
        await released;
      }
      return docsAgentScript(request, callIndex);
    };
    scenario = await startRunScenario(dialect, forge, script);
    const { t, project } = scenario;
    const { db } = t.services.database;
    stale = scenario.spawnWorker(pause === 'renewal not due' ? { DOCWRIGHT_JOB_LEASE_SECONDS: '60' } : {});
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page');
    const branch = `docwright/${job.id}`;
    await waitFor(() => phase === 'second worker', 'the first worker never reached its final model call', stale);

    // Past the first worker's lease, a second worker takes the job over.
    if (pause === 'waited out') await new Promise((resolve) => setTimeout(resolve, 1_500));
    else
      await db
        .updateTable('job_queue')
        .set({ locked_until: Date.now() - 1 })
        .where('job_id', '=', job.id)
        .execute();
    const firstClaim = await db.selectFrom('job_queue').select('lease_token').where('job_id', '=', job.id).executeTakeFirstOrThrow();
    scenario.startRescuer();
    await Promise.race([
      secondHeld,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the second worker never reached its final model call')), 30_000)),
    ]);
    const secondClaim = await db.selectFrom('job_queue').select('lease_token').where('job_id', '=', job.id).executeTakeFirstOrThrow();
    expect(secondClaim.lease_token).toBeGreaterThan(firstClaim.lease_token);

    // The second worker waits for its model; whatever changes now is the first one's doing.
    const snapshot = async () => ({
      events: await db.selectFrom('job_events').select(['id', 'type', 'data']).where('job_id', '=', job.id).orderBy('id').execute(),
      turns: await db.selectFrom('job_turns').selectAll().where('job_id', '=', job.id).execute(),
      job: await db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow(),
      // Not locked_until: the second worker keeps renewing its lease.
      queue: await db.selectFrom('job_queue').select(['locked_by', 'lease_token', 'run_at']).where('job_id', '=', job.id).execute(),
    });
    const before = await snapshot();
    stale.process.kill('SIGCONT');
    await waitFor(() => stale.log().includes('lease passed to another worker'), 'the first worker never noticed it lost the lease', stale);
    if (pause === 'renewal not due') expect(stale.log()).toContain('(a write was refused)');
    expect(await snapshot()).toEqual(before);
    expect(scenario.branches()).toEqual(['main']);
    expect(await scenario.pullRequestCount()).toBe(0);

    release();
    const done = await scenario.waitForSettled(job.id);
    expect(done.status).toBe('completed');
    expect(scenario.branches()).toEqual(['main', branch].sort());
    const turn = await db.selectFrom('job_turns').select(['status', 'attempts', 'commit_sha']).where('job_id', '=', job.id).executeTakeFirstOrThrow();
    expect(turn.status).toBe('completed');
    expect(turn.attempts).toBe(2);
    // The branch is the second worker's: its recorded commit, on top of the base.
    expect(scenario.branchCommit(branch)).toBe(turn.commit_sha);
    expect(scenario.branchCommit(`${branch}~1`)).toBe(scenario.branchCommit('main'));
    expect(await scenario.pullRequestCount()).toBe(1);
    expect(done.prLink).toBe(await scenario.expectedPrLink());
    const types = (await db.selectFrom('job_events').select('type').where('job_id', '=', job.id).execute()).map((event) => event.type);
    for (const once of ['turn.completed', 'pull_request', 'job.completed']) expect(types.filter((type) => type === once)).toHaveLength(1);
    // The first worker lives on and holds nothing.
    expect(stale.process.exitCode).toBeNull();
    expect(stale.log()).not.toMatch(/"level":50/);
  });
});

async function waitFor(condition: () => boolean, failure: string, child: WorkerChild): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${failure}: ${child.log()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
