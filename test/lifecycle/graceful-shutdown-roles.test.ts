import { afterEach, describe, expect, test } from 'vitest';
import { ApiClient } from '../../src/cli/api-client.js';
import { JobsApi, type JobStreamEvent } from '../../src/cli/jobs-api.js';
import { followJob } from '../../src/cli/jobs-follow.js';
import { startDocwright, type DocwrightProcess } from '../helpers/docwright-process.js';
import { startSwitchingProxy, type SwitchingProxy } from '../helpers/switching-proxy.js';
import {
  createGate,
  createLifecycleFixture,
  eventually,
  gatedScript,
  openStream,
  shutdownPhases,
  type Gate,
  type LifecycleFixture,
} from './lifecycle-fixture.js';

/**
 * Issue 12, test 3 for the other roles: `worker` alone, `serve --no-worker` with a stream
 * open, a second signal, and a client following a job across an API process's shutdown.
 */
describe('graceful shutdown of every role [postgres]', () => {
  let f: LifecycleFixture;
  let gate: Gate;
  let proxy: SwitchingProxy | undefined;
  const children: DocwrightProcess[] = [];
  afterEach(async () => {
    gate.open();
    await proxy?.close();
    proxy = undefined;
    await Promise.all(children.splice(0).map((child) => child.kill()));
    await f.close();
  });

  async function start(args: string[], extra: Record<string, string> = {}): Promise<DocwrightProcess> {
    const child = await startDocwright({ args, env: f.env(extra) });
    children.push(child);
    return child;
  }

  const turnOf = (jobId: string) =>
    f.t.services.database.db.selectFrom('job_turns').select(['status', 'attempts']).where('job_id', '=', jobId).executeTakeFirstOrThrow();
  const queueRowOf = (jobId: string) =>
    f.t.services.database.db.selectFrom('job_queue').select(['locked_by', 'locked_until']).where('job_id', '=', jobId).executeTakeFirst();

  test('`docwright worker`: SIGTERM hands a turn still running after the grace back (attempt not counted) and exits 0', async () => {
    gate = createGate();
    f = await createLifecycleFixture('postgres', gatedScript(gate));
    const worker = await start(['worker'], { DOCWRIGHT_PUBLIC_URL: 'http://docs.test', DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const { job } = await f.t.services.jobs.create(f.project, 'Add a troubleshooting page');
    await gate.reached;
    const signalledAt = Date.now();
    worker.signal('SIGTERM');
    expect(await worker.waitForExit(20_000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(1_000 + 8_000);
    expect(await turnOf(job.id)).toEqual({ status: 'queued', attempts: 0 });
    expect(await queueRowOf(job.id)).toEqual({ locked_by: null, locked_until: null });
    const phases = shutdownPhases(worker);
    expect(phases).toEqual([
      'shutdown requested',
      'shutdown: draining: no new jobs are claimed',
      'shutdown: waiting for running turns to finish',
      'shutdown: grace period over: handed the running turns back (their attempt does not count)',
      'shutdown: closing the store',
      'stopped',
    ]);
  });

  test('`docwright serve --no-worker`: an open stream does not hold the shutdown up; it ends with `reconnect`, exit 0 at once', async () => {
    gate = createGate();
    f = await createLifecycleFixture('postgres', gatedScript(gate));
    const api = await start(['serve', '--no-worker'], { DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS: '30' });
    const { job } = await f.t.services.jobs.create(f.project, 'Add a troubleshooting page');
    const stream = await openStream(`${api.url}/v2/agent/${f.project.id}/job/${job.id}/events`, f.key);
    await eventually(async () => (stream.events.some((event) => event.type === 'job.created') ? true : undefined), 10_000, 'the first event');
    const signalledAt = Date.now();
    api.signal('SIGTERM');
    expect(await api.waitForExit(20_000)).toEqual({ code: 0, signal: null });
    // Nothing to drain: far below the 30 s grace that an open stream used to cost.
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    expect(await stream.ended).toBe('ended');
    expect(stream.events.at(-1)).toMatchObject({ type: 'reconnect', data: JSON.stringify({ reason: 'shutdown', retryMs: 1000 }) });
  });

  test('a second signal exits at once (143); the lease frees the job and the next worker finishes it', async () => {
    gate = createGate();
    f = await createLifecycleFixture('postgres', gatedScript(gate));
    const serve = await start(['serve'], { DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS: '60', DOCWRIGHT_JOB_LEASE_SECONDS: '2' });
    const { job } = await f.t.services.jobs.create(f.project, 'Add a troubleshooting page');
    await gate.reached;
    serve.signal('SIGTERM');
    await serve.waitForLog('shutdown: waiting for running turns to finish');
    const secondAt = Date.now();
    serve.signal('SIGTERM');
    expect(await serve.waitForExit(10_000)).toEqual({ code: 143, signal: null });
    expect(Date.now() - secondAt).toBeLessThan(2_000);
    expect(serve.logs.some((line) => line.msg.startsWith('second signal: exiting at once'))).toBe(true);
    // Still leased by the dead process until the lease lapses; then anyone may take it.
    expect((await queueRowOf(job.id))?.locked_by).not.toBeNull();
    gate.open();
    await start(['worker'], { DOCWRIGHT_PUBLIC_URL: 'http://docs.test' });
    const done = await f.settled(job.id, 30_000);
    expect(done.status).toBe('completed');
  });

  test('a client following a job (`jobs wait`) is moved to another API process by the `reconnect` event: every event once, no notice', async () => {
    gate = createGate();
    f = await createLifecycleFixture('postgres', gatedScript(gate));
    const [first, second] = await Promise.all([start(['serve', '--no-worker']), start(['serve', '--no-worker'])]);
    await start(['worker'], { DOCWRIGHT_PUBLIC_URL: 'http://docs.test' });
    // Plays the load balancer: first → first process; once it drains, → the second.
    proxy = await startSwitchingProxy(first.url!);
    const api = new JobsApi(new ApiClient({ url: proxy.url, apiKey: f.key }), f.project.id);
    const job = await api.create('Add a troubleshooting page');
    const events: JobStreamEvent[] = [];
    const notices: string[] = [];
    const following = followJob({ api, jobId: job.id, onEvent: (event) => events.push(event), onNotice: (notice) => notices.push(notice) });
    await gate.reached;
    await eventually(async () => (events.some((event) => event.type === 'turn.started') ? true : undefined), 10_000, 'turn.started');
    proxy.switchTo(second.url!);
    first.signal('SIGTERM');
    expect(await first.waitForExit(20_000)).toEqual({ code: 0, signal: null });
    gate.open();
    const result = await following;
    expect(result).toMatchObject({ timedOut: false, job: { status: 'completed' } });
    expect(notices).toEqual([]);
    const stored = await f.t.services.database.db.selectFrom('job_events').select(['id', 'type']).where('job_id', '=', job.id).orderBy('id').execute();
    expect(events.map((event) => ({ id: event.id, type: event.type }))).toEqual(stored.map((row) => ({ id: Number(row.id), type: row.type })));
    // The second process served the rest, resuming after the last event the first one sent.
    expect(proxy.requests.filter((request) => request.url.endsWith('/events')).map((request) => request.target)).toEqual([first.url, second.url]);
  });
});
