import pg from 'pg';
import { afterEach, describe, expect, test } from 'vitest';
import type { Dialect } from '../../src/db/database.js';
import type { FakeModelScript, FakeReply } from '../fakes/fake-model-server.js';
import { startRunScenario, type RunScenario, type ScenarioForge } from '../helpers/run-scenario.js';
import type { WorkerChild } from '../helpers/worker-child.js';
import { docsAgentScript } from './docs-agent-script.js';

/**
 * Issue 12, test 1: a `docwright worker` child is SIGKILLed at each checkpoint of a run;
 * another worker takes the job over when the lease expires, and the job ends `completed`
 * with exactly one branch and one pull request.
 *
 * Each checkpoint is reached by watching what the run does outside the process, never by
 * a hook in the worker: the fake model holds the request it is at, the fake GitHub the
 * API call that follows the push (the lookup) or the pull request's creation, and on the
 * local forge — whose pull request is a row in the database — PostgreSQL locks hold the
 * run just after its push (the local forge's pull request lock) or just after the pull
 * request's insert (the job's row, which only the turn's outcome writes). SQLite has no
 * lock that stops one write and not the ones before it, so those two local-forge
 * checkpoints run on PostgreSQL only.
 */
type Checkpoint = 'after the clone' | 'inside the model loop' | 'after the push' | 'after the pull request is created';
const CHECKPOINTS: Checkpoint[] = ['after the clone', 'inside the model loop', 'after the push', 'after the pull request is created'];
const CASES: Array<[Dialect, ScenarioForge, Checkpoint]> = (['postgres', 'sqlite'] as const).flatMap((dialect) =>
  (['local', 'github'] as const).flatMap((forge) =>
    CHECKPOINTS.filter(
      (checkpoint) => dialect === 'postgres' || forge === 'github' || checkpoint === 'after the clone' || checkpoint === 'inside the model loop',
    ).map((checkpoint): [Dialect, ScenarioForge, Checkpoint] => [dialect, forge, checkpoint]),
  ),
);

const NEVER_ANSWERED: FakeReply = { text: 'never delivered', delayMs: 60_000 };

describe('a worker killed (SIGKILL) at each checkpoint of a run', () => {
  let scenario: RunScenario | null = null;
  let lockClient: pg.Client | null = null;
  afterEach(async () => {
    await lockClient?.end().catch(() => {});
    lockClient = null;
    await scenario?.close();
    scenario = null;
  });

  test.each(CASES)('[%s, %s forge] %s: the job ends completed with one branch and one pull request', async (dialect, forge, checkpoint) => {
    let child: WorkerChild | null = null;
    let killed = false;
    let reportKilled: () => void = () => {};
    const childKilled = new Promise<void>((resolve) => (reportKilled = resolve));
    const kill = (): void => {
      if (killed || !child) return;
      killed = true;
      child.process.kill('SIGKILL');
      reportKilled();
    };
    const script: FakeModelScript = (request, callIndex) => {
      if (!killed && checkpoint === 'after the clone') return NEVER_ANSWERED;
      if (!killed && checkpoint === 'inside the model loop' && request.toolRounds === 1) {
        kill();
        return NEVER_ANSWERED;
      }
      return docsAgentScript(request, callIndex);
    };
    scenario = await startRunScenario(dialect, forge, script);
    const { t, github, project } = scenario;
    if (github && checkpoint === 'after the push') {
      // The lookup of an existing pull request is the run's first call after its push.
      github.intercept((request) => {
        if (killed || request.method !== 'GET' || !request.path.endsWith('/pulls')) return undefined;
        kill();
        return { status: 502 };
      });
    }
    if (github && checkpoint === 'after the pull request is created') {
      github.intercept((request) => {
        if (!killed && request.method === 'POST' && request.path.endsWith('/pulls')) kill();
        return undefined; // the fake creates the pull request; its answer reaches no one
      });
    }

    child = scenario.spawnWorker();
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page');
    const branch = `docwright/${job.id}`;
    if (forge === 'local' && (checkpoint === 'after the push' || checkpoint === 'after the pull request is created')) {
      lockClient = new pg.Client(t.testDatabase.location);
      await lockClient.connect();
      // The local forge opens its pull request under this advisory lock (lockKey): held, the run stops right after its push.
      await lockClient.query('select pg_advisory_lock(hashtextextended($1, 0))', [`local-pulls:${project.id}`]);
      await waitFor(() => scenario!.branches().includes(branch), 'the push', child);
      if (checkpoint === 'after the pull request is created') {
        // After the push only the turn's outcome writes the job's row (each model step's
        // usage writes it before): with the row locked and the pull request let through,
        // the run stops right after the pull request's insert. The advisory lock is the
        // session's, so it goes while the row lock stays until the client ends.
        await lockClient.query('begin');
        await lockClient.query('select id from jobs where id = $1 for no key update', [job.id]);
        await lockClient.query('select pg_advisory_unlock(hashtextextended($1, 0))', [`local-pulls:${project.id}`]);
        await waitFor(async () => (await scenario!.pullRequestCount()) === 1, 'the pull request', child);
      }
      kill();
    } else if (checkpoint === 'after the clone') {
      await scenario.waitForClone(job.id);
      kill();
    }
    await Promise.race([childKilled, new Promise((_, reject) => setTimeout(() => reject(new Error(`never reached ${checkpoint}: ${child.log()}`)), 30_000))]);
    await child.exited;
    if (lockClient) {
      await lockClient.end();
      lockClient = null;
    }

    const interrupted = await t.services.database.db
      .selectFrom('job_turns')
      .select(['status', 'attempts'])
      .where('job_id', '=', job.id)
      .executeTakeFirstOrThrow();
    expect(interrupted).toEqual({ status: 'running', attempts: 1 });
    const pushedBeforeKill = checkpoint === 'after the push' || checkpoint === 'after the pull request is created';
    expect(scenario.branches().includes(branch)).toBe(pushedBeforeKill);
    expect(await scenario.pullRequestCount()).toBe(checkpoint === 'after the pull request is created' ? 1 : 0);

    scenario.startRescuer();
    const done = await scenario.waitForSettled(job.id);
    expect(done.status).toBe('completed');
    expect(scenario.branches()).toEqual(['main', branch].sort());
    expect(await scenario.pullRequestCount()).toBe(1);
    expect(done.prLink).toBe(await scenario.expectedPrLink());
    const turn = await t.services.database.db.selectFrom('job_turns').select(['status', 'attempts']).where('job_id', '=', job.id).executeTakeFirstOrThrow();
    expect(turn).toEqual({ status: 'completed', attempts: 2 });
    const events = await t.services.database.db
      .selectFrom('job_events')
      .select('type')
      .where('job_id', '=', job.id)
      .where('type', 'in', ['pull_request', 'job.completed'])
      .execute();
    expect(events.map((event) => event.type).sort()).toEqual(['job.completed', 'pull_request']);
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, child: WorkerChild): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`the worker never reached ${what}: ${child.log()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
