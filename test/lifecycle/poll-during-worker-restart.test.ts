import { afterEach, expect, test } from 'vitest';
import { startDocwright, type DocwrightProcess } from '../helpers/docwright-process.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';
import { createLifecycleFixture, eventually, type LifecycleFixture } from './lifecycle-fixture.js';

/**
 * The issue asks for 60 s. DOCWRIGHT_TEST_POLL_LOAD_SECONDS shortens it for a local run;
 * the suite keeps 60 (the test runs beside the other files, so it adds little to the run).
 */
const LOAD_MS = Number(process.env.DOCWRIGHT_TEST_POLL_LOAD_SECONDS ?? 60) * 1000;
const POLLERS = 4;
/**
 * Each poller waits this long between polls: about 150 polls/s in all, a steady load that
 * leaves the shared CI machine to the files running beside this one (timing tests among them).
 */
const POLL_PAUSE_MS = 20;

let f: LifecycleFixture;
const children: DocwrightProcess[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
  await f.close();
});

/**
 * Issue 12, test 7: clients poll jobs for 60 s through an API process while the worker
 * process restarts twice (SIGTERM, a new one), with jobs running and new ones arriving:
 * not one poll gets a 5xx or a failed connection, and every job completes.
 */
test(
  'polling for 60 s while the worker restarts: zero 5xx, every job completes [postgres]',
  async () => {
    // Every model answer takes 300 ms: a job runs for about two seconds, so restarts meet running turns.
    f = await createLifecycleFixture('postgres', async (request, callIndex) => ({ ...(await docsAgentScript(request, callIndex)), delayMs: 300 }));
    const api = await startDocwright({ args: ['serve', '--no-worker'], env: f.env({ DOCWRIGHT_RATE_LIMIT: '10000' }) });
    children.push(api);
    const workerEnvironment = f.env({ DOCWRIGHT_PUBLIC_URL: 'http://docs.test', DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS: '3', DOCWRIGHT_WORKER_CONCURRENCY: '4' });
    let worker = await startDocwright({ args: ['worker'], env: workerEnvironment });
    children.push(worker);

    const jobIds: string[] = [];
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    const endAt = Date.now() + LOAD_MS;
    const createJobs = async () => {
      while (Date.now() < endAt) {
        const response = await f.api(api.url!, `/v2/agent/${f.project.id}/job`, {
          method: 'POST',
          body: JSON.stringify({ prompt: jobIds.length % 2 === 0 ? 'Add a troubleshooting page' : 'Is the quickstart fine?' }),
        });
        if (response.status !== 201) failures.push(`create answered ${response.status}: ${await response.text()}`);
        else jobIds.push(((await response.json()) as { id: string }).id);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      }
    };
    const poll = async (poller: number) => {
      for (let index = poller; Date.now() < endAt; index++) {
        if (jobIds.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const jobId = jobIds[jobIds.length - 1 - (index % Math.min(jobIds.length, 8))]!;
        try {
          const response = await f.api(api.url!, `/v2/agent/${f.project.id}/job/${jobId}`);
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        } catch (error) {
          failures.push(`poll failed: ${(error as Error).message}`);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_PAUSE_MS));
      }
    };
    const restarts = async () => {
      for (const at of [LOAD_MS / 4, (LOAD_MS * 3) / 5]) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, endAt - LOAD_MS + at - Date.now())));
        // Restart while a turn runs, which is the case that matters.
        await eventually(
          async () => {
            const running = await f.t.services.database.db.selectFrom('job_turns').select('id').where('status', '=', 'running').executeTakeFirst();
            return running ? true : undefined;
          },
          15_000,
          'a running turn',
        );
        worker.signal('SIGTERM');
        const exit = await worker.waitForExit(20_000);
        if (exit.code !== 0) failures.push(`worker exited ${JSON.stringify(exit)}: ${worker.output()}`);
        worker = await startDocwright({ args: ['worker'], env: workerEnvironment });
        children.push(worker);
      }
    };
    await Promise.all([createJobs(), restarts(), ...Array.from({ length: POLLERS }, (_, poller) => poll(poller))]);

    const polls = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    console.info(
      `${polls} polls in ${LOAD_MS / 1000} s (${Math.round(polls / (LOAD_MS / 1000))}/s), statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${jobIds.length} jobs`,
    );
    expect(failures.join('\n\n')).toBe('');
    expect([...statuses.keys()]).toEqual([200]);
    expect(polls).toBeGreaterThan(LOAD_MS / 100);
    // Both restarts handed running turns back or let them finish: every job completes.
    for (const jobId of jobIds) {
      const job = await f.settled(jobId, 60_000);
      expect(job.status).toBe('completed');
    }
    // The restarts met running turns (each waited for one).
    const stopped = children.filter((child) => child.args[0] === 'worker' && child.logs.some((line) => line.msg === 'stopped'));
    expect(stopped).toHaveLength(2);
    const metTurns = stopped.filter((child) => child.logs.some((line) => line.msg === 'shutdown: waiting for running turns to finish')).length;
    const handedBack = stopped.filter((child) => child.logs.some((line) => line.msg.startsWith('shutdown: grace period over'))).length;
    console.info(`worker restarts: ${metTurns} of 2 met running turns, ${handedBack} handed turns back after the grace`);
    expect(metTurns).toBeGreaterThanOrEqual(1);
  },
  LOAD_MS + 180_000,
);
