import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { RunWrites } from '../../src/jobs/run-writes.js';
import { MAX_EVENT_DATA_BYTES, recordWebhookEvent, settledEventType } from '../../src/webhooks/webhook-events.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { createWebhookKit, type WebhookKit } from './webhook-kit.js';
import { rejection } from '../helpers/rejection.js';

describe('settledEventType', () => {
  test('a failure coded cancelled is job.cancelled; any other failure job.failed', () => {
    expect(settledEventType('completed', null)).toBe('job.completed');
    expect(settledEventType('failed', 'cancelled')).toBe('job.cancelled');
    expect(settledEventType('failed', 'model_error')).toBe('job.failed');
    expect(settledEventType('failed', null)).toBe('job.failed');
  });
});

describe.each(BACKENDS)('job settles write their webhook event in the same transaction [%s]', (dialect) => {
  let kit: WebhookKit;
  afterEach(async () => kit?.close());

  async function settleWithFailure(code: string): Promise<string[]> {
    const { services, clock } = kit;
    const project = await services.projects.get(kit.projectId);
    const { job } = await services.jobs.create(project, 'Write a page');
    const claimed = await services.queue.claim('worker-a', 60_000);
    const lease = { ...claimed!, workerId: 'worker-a' };
    const writes = new RunWrites({ database: services.database, clock, queue: services.queue, notifier: services.notifier });
    const turn = await services.database.db
      .selectFrom('job_turns')
      .select(['id', 'sequence', 'attempts'])
      .where('job_id', '=', job.id)
      .executeTakeFirstOrThrow();
    await writes.failTurn(lease, turn, { code, message: `stopped: ${code}` });
    expect(await writes.settle(lease)).toBe(true);
    const rows = await services.database.db.selectFrom('webhook_messages').select(['event_type', 'data']).orderBy('created_at').execute();
    return rows.filter((row) => (JSON.parse(row.data) as { jobId: string }).jobId === job.id).map((row) => row.event_type);
  }

  test('a cancelled job announces job.cancelled, a failed one job.failed', async () => {
    kit = await createWebhookKit(dialect);
    await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    expect(await settleWithFailure('cancelled')).toEqual(['job.cancelled']);
    expect(await settleWithFailure('model_error')).toEqual(['job.failed']);
  });

  test('a cancel through the API announces job.cancelled in its own transaction, and wakes the delivery workers after it', async () => {
    kit = await createWebhookKit(dialect);
    await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    const project = await kit.services.projects.get(kit.projectId);
    const { job } = await kit.services.jobs.create(project, 'Write a page');
    // What a waking worker finds at each wake-up: the message must be committed by then.
    const pendingAtWake: number[] = [];
    const unsubscribe = kit.services.notifier.subscribe('docwright_webhooks', () => {
      void kit.services.webhookOutbox.nextDueAt().then((due) => pendingAtWake.push(due === null ? 0 : 1));
    });
    const cancelled = await kit.api('POST', `/v2/agent/${kit.projectId}/job/${job.id}/cancel`);
    expect(cancelled.status).toBe(200);
    await expect.poll(() => pendingAtWake).toEqual([1]);
    unsubscribe();
    const rows = await kit.services.database.db.selectFrom('webhook_messages').select(['event_type', 'data']).execute();
    expect(rows.map((row) => [row.event_type, (JSON.parse(row.data) as { jobId: string; error: unknown }).error])).toEqual([
      ['job.cancelled', { code: 'cancelled', message: 'The job was cancelled by request.' }],
    ]);
  });

  test('a settle the state machine refuses records no event', async () => {
    kit = await createWebhookKit(dialect);
    await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    const { services } = kit;
    const project = await services.projects.get(kit.projectId);
    const { job } = await services.jobs.create(project, 'Write a page');
    const claimed = await services.queue.claim('worker-a', 60_000);
    const writes = new RunWrites({ database: services.database, clock: kit.clock, queue: services.queue, notifier: services.notifier });
    await services.database.db.updateTable('job_turns').set({ status: 'completed' }).where('job_id', '=', job.id).execute();
    // A job that is no longer active cannot settle: the transaction throws after the outbox write would have happened.
    await services.database.db.updateTable('jobs').set({ status: 'failed' }).where('id', '=', job.id).execute();
    expect(await rejection(writes.settle({ ...claimed!, workerId: 'worker-a' }))).toMatchObject({ code: 'illegal_job_transition' });
    expect(await services.database.db.selectFrom('webhook_messages').selectAll().execute()).toEqual([]);
  });

  test('oversized event data keeps the ids instead of failing the change', async () => {
    kit = await createWebhookKit(dialect);
    await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    const url = `https://forge.example/${'x'.repeat(MAX_EVENT_DATA_BYTES)}`;
    const data = { projectId: kit.projectId, jobId: 'job-1', pullRequest: { number: 1, url } };
    await writeTransaction(kit.services.database, (executor) => recordWebhookEvent(executor, { type: 'pull_request.opened', data }, kit.clock.now()));
    const row = await kit.services.database.db.selectFrom('webhook_messages').select('data').executeTakeFirstOrThrow();
    expect(JSON.parse(row.data)).toEqual({ projectId: kit.projectId, jobId: 'job-1', truncated: true });
  });
});
