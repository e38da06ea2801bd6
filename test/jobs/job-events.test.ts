import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { branches } from '../helpers/docs-repository.js';
import { docsAgentScript } from './docs-agent-script.js';

interface ServerSentEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** Reads a whole event stream until the server ends it. */
async function readStream(url: string, headers: Record<string, string>): Promise<ServerSentEvent[]> {
  const response = await fetch(url, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await response.text();
  return text
    .split('\n\n')
    .map((block) =>
      Object.fromEntries(
        block
          .split('\n')
          .filter((line) => /^(id|event|data): /.test(line))
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      ),
    )
    .filter((fields) => fields.id !== undefined)
    .map((fields) => ({ id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data!) as Record<string, unknown> }));
}

describe.each(BACKENDS)('job progress [%s]', (dialect) => {
  let h: JobHarness;
  afterEach(async () => h?.close());

  test('events stream live to the end, and resume from Last-Event-ID', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a troubleshooting page' });
    const url = `${base}/v2/agent/${h.projectId}/job/${created.body.id}/events`;
    const events = await readStream(url, { authorization: `Bearer ${h.key}` });
    const types = events.map((event) => event.event);
    expect(types[0]).toBe('job.created');
    expect(types).toContain('turn.started');
    expect(types.filter((type) => type === 'step').length).toBeGreaterThanOrEqual(4);
    expect(types.at(-1)).toBe('job.completed');
    expect(types.indexOf('pull_request')).toBeLessThan(types.indexOf('job.completed'));
    const pullRequest = events.find((event) => event.event === 'pull_request')!;
    const { share_token: token } = await h.services.database.db.selectFrom('local_pull_requests').select('share_token').executeTakeFirstOrThrow();
    expect(pullRequest.data.url).toBe(`http://docs.test/projects/${h.projectId}/pulls/1?token=${token}`);
    expect(events.map((event) => event.id)).toEqual([...events.map((event) => event.id)].sort((a, b) => a - b));

    const middle = events[Math.floor(events.length / 2)]!;
    const resumed = await readStream(url, { authorization: `Bearer ${h.key}`, 'last-event-id': String(middle.id) });
    expect(resumed.map((event) => event.id)).toEqual(events.filter((event) => event.id > middle.id).map((event) => event.id));

    const unauthorized = await fetch(url);
    expect(unauthorized.status).toBe(401);
  });

  test('archiving an active job stops its run: no branch, no pull request, status archived', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'slow down and think' });
    const deadline = Date.now() + 10_000;
    while (h.model.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const archived = await h.request('POST', `/v2/agent/${h.projectId}/job/${created.body.id}/archive`);
    expect(archived.body.status).toBe('archived');
    const stopDeadline = Date.now() + 5_000;
    while (h.worker.activeJobs > 0 && Date.now() < stopDeadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(h.worker.activeJobs).toBe(0);
    const job = (await h.request('GET', `/v2/agent/${h.projectId}/job/${created.body.id}`)).body;
    expect(job).toMatchObject({ status: 'archived', prLink: null });
    expect(branches(h.repository)).toEqual(['main']);
    expect(await h.services.database.db.selectFrom('job_queue').selectAll().execute()).toEqual([]);
    const turn = await h.services.database.db.selectFrom('job_turns').select('status').where('job_id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(turn.status).toBe('cancelled');
  });
});
