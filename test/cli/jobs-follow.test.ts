import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ApiClient } from '../../src/cli/api-client.js';
import { JobsApi, type JobStreamEvent } from '../../src/cli/jobs-api.js';
import { followJob, type FollowOptions } from '../../src/cli/jobs-follow.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { startInterruptingProxy, type EventStreamMode, type InterruptingProxy } from '../helpers/interrupting-proxy.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';

describe('following a job through a flaky connection', () => {
  let h: JobHarness;
  let upstream: string;
  let proxy: InterruptingProxy | undefined;

  beforeAll(async () => {
    h = await createJobHarness('sqlite', docsAgentScript);
    upstream = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(async () => h?.close());

  async function follow(prompt: string, modes: EventStreamMode[], tuning: Partial<FollowOptions> = {}) {
    proxy = await startInterruptingProxy(upstream, modes);
    const api = new JobsApi(new ApiClient({ url: proxy.url, apiKey: h.key }), h.projectId);
    const job = await api.create(prompt);
    const events: JobStreamEvent[] = [];
    const notices: string[] = [];
    const result = await followJob({
      api,
      jobId: job.id,
      onEvent: (event) => events.push(event),
      onNotice: (notice) => notices.push(notice),
      reconnectDelayMs: 20,
      ...tuning,
    });
    const stored = await h.services.database.db.selectFrom('job_events').select(['id', 'type']).where('job_id', '=', job.id).orderBy('id').execute();
    return { job, result, events, notices, stored: stored.map((row) => ({ id: Number(row.id), type: row.type })), requests: proxy.eventRequests };
  }

  test('a dropped stream is resumed with Last-Event-ID: every event exactly once, in order', async () => {
    const { result, events, notices, stored, requests } = await follow('Add a troubleshooting page', ['cut-after-first-event']);
    expect(result.timedOut).toBe(false);
    expect(result.job.status).toBe('completed');
    expect(result.job.prLink).toMatch(/\/pulls\/\d+\?token=[A-Za-z0-9_-]{32}$/);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests[0]!.lastEventId).toBeUndefined();
    expect(requests[1]!.lastEventId).toBe(String(events[0]!.id));
    expect(notices[0]).toBe(`event stream interrupted (terminated); reconnecting after event ${events[0]!.id}`);
    expect(events.map((event) => ({ id: event.id, type: event.type }))).toEqual(stored);
    expect(events.at(-1)!.type).toBe('job.completed');
  });

  test('a stream that ends while the job is still active is reopened where it ended', async () => {
    const { result, events, notices, stored, requests } = await follow('slow answer please', ['end-after-first-event']);
    expect(result).toMatchObject({ timedOut: false, job: { status: 'completed' } });
    expect(notices).toEqual([]);
    expect(requests.map((request) => request.lastEventId)).toEqual([undefined, String(events[0]!.id)]);
    expect(events.map((event) => event.id)).toEqual(stored.map((event) => event.id));
  });

  test('a stream that cannot be opened falls back to polling the job', async () => {
    const { result, events, notices } = await follow('Add a troubleshooting page', ['unavailable'], { pollIntervalMs: 30 });
    expect(result).toMatchObject({ timedOut: false, job: { status: 'completed' } });
    expect(events).toEqual([]);
    expect(notices).toEqual([
      'event stream unavailable (the server answered 503: Too many open event streams; poll the job instead.); polling the job instead',
    ]);
  });

  test('a silent connection is given up after the idle timeout and reopened', async () => {
    const { result, events, notices, stored, requests } = await follow('Is the quickstart fine?', ['stall'], { idleTimeoutMs: 300 });
    expect(result.job.status).toBe('completed');
    expect(notices).toEqual(['event stream interrupted (no data for 300 ms); reconnecting']);
    expect(requests.map((request) => request.lastEventId)).toEqual([undefined, undefined]);
    expect(events.map((event) => event.id)).toEqual(stored.map((event) => event.id));
  });

  test('a timeout stops waiting, not the job', async () => {
    const started = Date.now();
    const { job, result } = await follow('slow answer please', [], { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(result).toMatchObject({ timedOut: true, job: { id: job.id, status: 'active' } });
    // The worker stops the run when the job is archived, so closing the harness does not wait for it.
    await h.request('POST', `/v2/agent/${h.projectId}/job/${job.id}/archive`);
  });

  test('an unknown job is the server’s 404, not a fallback to polling', async () => {
    const api = new JobsApi(new ApiClient({ url: upstream, apiKey: h.key }), h.projectId);
    const notices: string[] = [];
    await expect(followJob({ api, jobId: 'no-such-job', onEvent: () => undefined, onNotice: (notice) => notices.push(notice) })).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
    });
    expect(notices).toEqual([]);
  });
});
