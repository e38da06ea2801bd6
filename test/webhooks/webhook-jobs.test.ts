import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { git } from '../helpers/docs-repository.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';
import { createLogger } from '../../src/app/logger.js';
import { createWebhookWorker } from '../../src/webhooks/start-webhook-worker.js';
import { startWebhookReceiver, verifyWithReference, type WebhookReceiver } from './webhook-receiver.js';
import { LOOPBACK_ALLOWED } from './webhook-kit.js';

interface Delivered {
  type: string;
  data: { jobId: string; projectId: string; status?: string; pullRequest?: { number: number; url: string }; links: { job: string } };
}

describe.each(BACKENDS)('webhooks of a real job run [%s]', (dialect) => {
  let h: JobHarness;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await h?.close();
    await receiver?.close();
  });

  test('a job against the fake model announces its pull request and its completion; a follow-up and a merge follow, each waking the delivery worker', async () => {
    // A 10-minute safety poll: every delivery below comes from a wake-up after the change's commit (run-writes, the merge).
    h = await createJobHarness(dialect, docsAgentScript, { ...LOOPBACK_ALLOWED, DOCWRIGHT_WEBHOOK_POLL_SECONDS: '600' });
    receiver = await startWebhookReceiver([200]);
    const webhooks = createWebhookWorker(h.services, createLogger({ level: 'silent' }));
    webhooks.start();
    await expect.poll(() => webhooks.state).toBe('sleeping');
    const created = await h.request('POST', `/v1/projects/${h.projectId}/webhooks`, { url: receiver.url });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    const delivered = async (count: number): Promise<Delivered[]> => {
      await receiver.untilReceived(count);
      expect(receiver.received).toHaveLength(count);
      // Verified with the reference implementation, as a receiver would.
      return receiver.received.map((delivery) => verifyWithReference(secret, delivery, Date.now()) as Delivered);
    };

    const job = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a troubleshooting page' });
    const jobId = job.body.id as string;
    const done = await h.waitForSettled(jobId);
    expect(done.status).toBe('completed');
    const first = await delivered(2);
    expect(first.map((event) => event.type).sort()).toEqual(['job.completed', 'pull_request.opened']);
    const opened = first.find((event) => event.type === 'pull_request.opened')!;
    expect(opened.data).toMatchObject({ jobId, projectId: h.projectId, pullRequest: { number: 1, url: done.prLink } });
    expect(first.find((event) => event.type === 'job.completed')!.data).toMatchObject({ jobId, status: 'completed', prLink: done.prLink });
    expect(opened.data.links.job).toBe(`http://docs.test/v2/agent/${h.projectId}/job/${jobId}`);

    await h.request('POST', `/v2/agent/${h.projectId}/job/${jobId}/message`, { prompt: 'Mention the verbose flag' });
    expect((await h.waitForSettled(jobId)).status).toBe('completed');
    const second = (await delivered(4)).slice(2);
    expect(second.map((event) => event.type).sort()).toEqual(['job.completed', 'pull_request.updated']);

    const reviewed = git(h.repository, 'rev-parse', `docwright/${jobId}`);
    await h.services.pullRequests.merge(h.projectId, 1, { id: 'user-1', email: 'admin@example.com', role: 'admin' }, reviewed);
    const merged = (await delivered(5))[4]!;
    expect(merged).toMatchObject({ type: 'pull_request.merged', data: { jobId, pullRequest: { number: 1, url: done.prLink } } });
    expect(new Set(receiver.received.map((delivery) => delivery.id)).size).toBe(5);
    await webhooks.stop();
  });
});
