import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { startDocwright, type DocwrightProcess } from '../helpers/docwright-process.js';
import { createGate, createLifecycleFixture, gatedScript, openStream, shutdownPhases, type Gate, type LifecycleFixture } from './lifecycle-fixture.js';

/**
 * Issue 12, test 3: SIGTERM `serve` with a turn running and event streams open. The
 * process drains in order (unready, no claims, grace for the turn while the API answers,
 * streams end with `reconnect`, listener, store) and exits 0 within the grace period.
 */
describe.each(BACKENDS)('SIGTERM to `docwright serve` with a turn running [%s]', (dialect) => {
  let f: LifecycleFixture;
  let gate: Gate;
  const children: DocwrightProcess[] = [];
  afterEach(async () => {
    gate.open();
    await Promise.all(children.splice(0).map((child) => child.kill()));
    await f.close();
  });

  async function startWithRunningTurn(extra: Record<string, string>) {
    gate = createGate();
    f = await createLifecycleFixture(dialect, gatedScript(gate));
    const serve = await startDocwright({ args: ['serve'], env: f.env(extra) });
    children.push(serve);
    const created = await f.api(serve.url!, `/v2/agent/${f.project.id}/job`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'Add a troubleshooting page' }),
    });
    expect(created.status).toBe(201);
    const job = (await created.json()) as { id: string };
    const jobStream = await openStream(`${serve.url}/v2/agent/${f.project.id}/job/${job.id}/events`, f.key);
    const projectStream = await openStream(`${serve.url}/v2/agent/${f.project.id}/jobs/events`, f.key);
    await gate.reached;
    return { serve, job, jobStream, projectStream };
  }

  test('a turn that finishes within the grace period completes; the API answers meanwhile, /readyz is 503; open streams end with `reconnect`; exit 0', async () => {
    const { serve, job, jobStream, projectStream } = await startWithRunningTurn({ DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS: '30' });
    const signalledAt = Date.now();
    serve.signal('SIGTERM');
    await serve.waitForLog('shutdown: waiting for running turns to finish');

    // Draining: unready for the load balancer, alive for the supervisor, and still serving.
    const ready = await fetch(`${serve.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('content-type')).toContain('application/problem+json');
    expect(await ready.json()).toMatchObject({ status: 503, code: 'shutting_down' });
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
    const poll = await f.api(serve.url!, `/v2/agent/${f.project.id}/job/${job.id}`);
    expect(poll.status).toBe(200);
    expect(await poll.json()).toMatchObject({ status: 'active' });

    gate.open();
    const exit = await serve.waitForExit(30_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(30_000);

    // The job's stream saw the turn through and ended with the job; the project stream,
    // which has no end of its own, was told to reconnect.
    expect(await jobStream.ended).toBe('ended');
    expect(jobStream.events.map((event) => event.type)).toContain('job.completed');
    expect(await projectStream.ended).toBe('ended');
    const last = projectStream.events.at(-1)!;
    expect(last.type).toBe('reconnect');
    expect(JSON.parse(last.data)).toEqual({ reason: 'shutdown', retryMs: 1000 });

    const stored = await f.t.services.jobRepository.get(f.project.id, job.id);
    expect(stored.status).toBe('completed');
    // Unset DOCWRIGHT_PUBLIC_URL: `serve` derives it from where it really listens (PORT=0 here).
    expect(stored.prLink?.startsWith(`${serve.url}/projects/${f.project.id}/pulls/1?token=`)).toBe(true);
    const turn = await f.t.services.database.db.selectFrom('job_turns').select(['status', 'attempts']).where('job_id', '=', job.id).executeTakeFirstOrThrow();
    expect(turn).toEqual({ status: 'completed', attempts: 1 });

    // Each phase is logged once, in order.
    const phases = shutdownPhases(serve);
    expect(phases).toEqual([
      'shutdown requested',
      'shutdown: draining: /readyz answers 503, no new jobs are claimed, requests are still served',
      'shutdown: waiting for running turns to finish',
      'shutdown: closing event streams and the HTTP server (in-flight requests finish)',
      'shutdown: ended open event streams (clients were told to reconnect)',
      'shutdown: closing the store',
      'stopped',
    ]);
  });

  test('a turn still running after the grace period is handed back without counting the attempt, its stream told to reconnect; exit 0', async () => {
    const { serve, job, jobStream } = await startWithRunningTurn({ DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS: '1.5' });
    const signalledAt = Date.now();
    serve.signal('SIGTERM');
    const exit = await serve.waitForExit(20_000);
    expect(exit).toEqual({ code: 0, signal: null });
    // The grace, plus handing back and closing: well under the 10 s margin.
    expect(Date.now() - signalledAt).toBeLessThan(1_500 + 8_000);
    expect(serve.logs.some((line) => line.msg.startsWith('shutdown: grace period over'))).toBe(true);

    expect(await jobStream.ended).toBe('ended');
    expect(jobStream.events.at(-1)).toMatchObject({ type: 'reconnect' });
    const turn = await f.t.services.database.db.selectFrom('job_turns').select(['status', 'attempts']).where('job_id', '=', job.id).executeTakeFirstOrThrow();
    expect(turn).toEqual({ status: 'queued', attempts: 0 });
    const row = await f.t.services.database.db
      .selectFrom('job_queue')
      .select(['locked_by', 'locked_until'])
      .where('job_id', '=', job.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ locked_by: null, locked_until: null });
    expect(readdirSync(join(f.t.testDatabase.dataDir, 'workspaces'))).toEqual([]);

    // The next process takes it over at once and finishes it on its first counted attempt.
    gate.open();
    const next = await startDocwright({ args: ['serve'], env: f.env() });
    children.push(next);
    const done = await f.settled(job.id, 30_000);
    expect(done.status).toBe('completed');
    const finished = await f.t.services.database.db
      .selectFrom('job_turns')
      .select(['status', 'attempts'])
      .where('job_id', '=', job.id)
      .executeTakeFirstOrThrow();
    expect(finished).toEqual({ status: 'completed', attempts: 1 });
  });
});
