import { afterEach, describe, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Job } from '../../src/jobs/job.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { buildSignedInApp, signedIn } from '../helpers/signed-in-app.js';
import { git } from '../helpers/docs-repository.js';
import { docsAgentScript } from './docs-agent-script.js';

/** Reads `event: job` messages from a live stream as they arrive, until told to stop. */
class JobStreamReader {
  readonly jobs: Job[] = [];
  private readonly controller = new AbortController();
  status = 0;
  private done: Promise<void> = Promise.resolve();

  async open(url: string, headers: Record<string, string>): Promise<void> {
    const response = await fetch(url, { headers, signal: this.controller.signal });
    this.status = response.status;
    if (response.status !== 200 || response.body === null) return;
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    this.done = (async () => {
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffer += value!;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          if (lines.includes('event: job')) this.jobs.push(JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)) as Job);
        }
      }
    })();
  }

  async waitFor(predicate: (job: Job) => boolean, timeoutMs = 30_000): Promise<Job> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.jobs.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching job event; got ${JSON.stringify(this.jobs.map((job) => [job.id, job.status, job.prStatus]))}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.done;
  }
}

describe.each(BACKENDS)("a project's job stream [%s]", (dialect) => {
  let h: JobHarness;
  let signedInApp: FastifyInstance | undefined;
  const readers: JobStreamReader[] = [];
  afterEach(async () => {
    for (const reader of readers.splice(0)) await reader.close();
    await signedInApp?.close();
    signedInApp = undefined;
    await h?.close();
  });

  test('delivers a job from active to completed, then the merge of its pull request; a follow-up after the merge is refused', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const url = `${base}/v2/agent/${h.projectId}/jobs/events`;

    const unauthenticated = new JobStreamReader();
    readers.push(unauthenticated);
    await unauthenticated.open(url, {});
    expect(unauthenticated.status).toBe(401);

    const stream = new JobStreamReader();
    readers.push(stream);
    await stream.open(url, { authorization: `Bearer ${h.key}` });
    expect(stream.status).toBe(200);

    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a troubleshooting page' });
    const jobId = created.body.id as string;
    const active = await stream.waitFor((job) => job.id === jobId);
    expect(active).toMatchObject({ status: 'active', prLink: null, prStatus: null });
    const completed = await stream.waitFor((job) => job.id === jobId && job.status === 'completed');
    expect(completed.prStatus).toBe('open');
    expect(completed.prLink).toMatch(/\/pulls\/1\?token=/);
    expect(stream.jobs.filter((job) => job.id === jobId).map((job) => job.status)[0]).toBe('active');
    expect(completed).toEqual(await h.waitForSettled(jobId));

    // The dashboard merges the pull request; the stream shows the job's new prStatus.
    signedInApp = await buildSignedInApp(h.services);
    const headCommit = git(h.repository, 'rev-parse', `docwright/${jobId}`);
    const merged = await signedInApp.inject({ method: 'POST', url: `/v1/projects/${h.projectId}/pulls/1/merge`, headers: signedIn(), payload: { headCommit } });
    expect(merged.statusCode).toBe(200);
    expect(git(h.repository, 'show', 'main:troubleshooting.mdx')).toContain('# Troubleshooting');
    const mergedJob = await stream.waitFor((job) => job.id === jobId && job.prStatus === 'merged');
    expect(mergedJob.status).toBe('completed');
    expect((await h.request('GET', `/v2/agent/${h.projectId}/job/${jobId}`)).body.prStatus).toBe('merged');

    const followUp = await h.request('POST', `/v2/agent/${h.projectId}/job/${jobId}/message`, { prompt: 'One more thing' });
    expect(followUp.status).toBe(409);
    expect(followUp.body.code).toBe('pull_request_merged');

    // A stream opened now first gets the jobs that changed within the last minute.
    const late = new JobStreamReader();
    readers.push(late);
    await late.open(url, { authorization: `Bearer ${h.key}` });
    expect((await late.waitFor((job) => job.id === jobId)).prStatus).toBe('merged');
  });
});
