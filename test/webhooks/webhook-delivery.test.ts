import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/webhook-outbox.js';
import { startWebhookReceiver, verifyWithReference, type WebhookReceiver } from './webhook-receiver.js';
import { createWebhookKit, type WebhookKit } from './webhook-kit.js';

describe.each(BACKENDS)('webhook delivery [%s]', (dialect) => {
  let kit: WebhookKit;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await kit?.close();
    await receiver?.close();
  });

  async function endpoint(events?: string[]): Promise<{ id: string; secret: string }> {
    const created = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: receiver.url, ...(events ? { events } : {}) });
    expect(created.status).toBe(201);
    return { id: created.body.webhook.id, secret: created.body.secret };
  }

  test('a job.archived event is signed the Standard Webhooks way and carries ids and links', async () => {
    kit = await createWebhookKit(dialect);
    receiver = await startWebhookReceiver([204]);
    const { id, secret } = await endpoint();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const jobId = await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    expect(delivery!.id).toMatch(/^msg_[0-9A-Za-z]{22}$/);
    expect(delivery!.timestamp).toBe(String(Math.floor(kit.clock.now() / 1000)));
    expect(delivery!.headers['content-type']).toBe('application/json');
    const payload = verifyWithReference(secret, delivery!, kit.clock.now());
    expect(payload).toEqual({
      type: 'job.archived',
      timestamp: new Date(kit.clock.now()).toISOString(),
      data: {
        projectId: kit.projectId,
        jobId,
        status: 'archived',
        error: null,
        prLink: null,
        links: {
          job: `https://docwright.example/v2/agent/${kit.projectId}/job/${jobId}`,
          dashboard: `https://docwright.example/projects/${kit.projectId}/jobs/${jobId}`,
        },
      },
    });
    // A signature made with another secret does not verify.
    expect(() => verifyWithReference(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, delivery!, kit.clock.now())).toThrow();
    const log = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${id}/deliveries`);
    expect(log.body.messages).toMatchObject([{ id: delivery!.id, eventType: 'job.archived', status: 'succeeded', attempts: 1 }]);
  });

  test('a failing receiver that later succeeds: retried after the backoff with the same webhook-id, one attempt marked successful', async () => {
    kit = await createWebhookKit(dialect);
    receiver = await startWebhookReceiver([500, 503, 200]);
    const { id } = await endpoint();
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    // Not due again before the first delay has passed.
    kit.clock.advance(RETRY_DELAYS_MS[0]! - 1);
    expect(await kit.worker.deliverDue()).toBe(0);
    kit.clock.advance(1);
    expect(await kit.worker.deliverDue()).toBe(1);
    kit.clock.advance(RETRY_DELAYS_MS[1]!);
    expect(await kit.worker.deliverDue()).toBe(1);
    kit.clock.advance(RETRY_DELAYS_MS[2]!);
    expect(await kit.worker.deliverDue()).toBe(0);

    expect(receiver.received.map((delivery) => delivery.id)).toEqual(Array(3).fill(receiver.received[0]!.id));
    expect(new Set(receiver.received.map((delivery) => delivery.body)).size).toBe(1);
    const messageId = receiver.received[0]!.id;
    const detail = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${id}/deliveries/${messageId}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ status: 'succeeded', attempts: 3, nextAttemptAt: null, lastError: null });
    expect(detail.body.attemptLog.map((attempt: { outcome: string; responseStatus: number }) => [attempt.outcome, attempt.responseStatus])).toEqual([
      ['failed', 500],
      ['failed', 503],
      ['succeeded', 200],
    ]);
    expect(detail.body.attemptLog[0]).toMatchObject({ attempt: 1, trigger: 'scheduled', errorCode: 'http_status', responseBody: 'receiver failure 500' });
    expect(detail.body.payload).toMatchObject({ type: 'job.archived' });
  });

  test('retries last more than a day, then the message fails; a redelivery keeps its webhook-id', async () => {
    kit = await createWebhookKit(dialect);
    receiver = await startWebhookReceiver([500]);
    const { id } = await endpoint();
    await kit.archivedJob();
    const start = kit.clock.now();
    await kit.worker.deliverDue();
    for (const delay of RETRY_DELAYS_MS) {
      kit.clock.advance(delay);
      expect(await kit.worker.deliverDue()).toBe(1);
    }
    expect(kit.clock.now() - start).toBeGreaterThan(24 * 3_600_000);
    kit.clock.advance(48 * 3_600_000);
    expect(await kit.worker.deliverDue()).toBe(0);
    const messageId = receiver.received[0]!.id;
    const failed = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${id}/deliveries/${messageId}`);
    expect(failed.body).toMatchObject({ status: 'failed', attempts: RETRY_DELAYS_MS.length + 1 });
    expect(receiver.received).toHaveLength(RETRY_DELAYS_MS.length + 1);

    receiver.statuses = [200];
    const redelivered = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks/${id}/deliveries/${messageId}/redeliver`);
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({ id: messageId, status: 'pending' });
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(receiver.received.at(-1)!.id).toBe(messageId);
    const done = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${id}/deliveries/${messageId}`);
    expect(done.body.status).toBe('succeeded');
    expect(done.body.attemptLog.at(-1)).toMatchObject({ trigger: 'manual', outcome: 'succeeded', responseStatus: 200 });
    expect(done.body.attemptLog.filter((attempt: { outcome: string }) => attempt.outcome === 'succeeded')).toHaveLength(1);
  });

  test('rotation: both secrets sign during the overlap, only the new one after it', async () => {
    kit = await createWebhookKit(dialect);
    receiver = await startWebhookReceiver([200]);
    const { id, secret: oldSecret } = await endpoint();
    const rotated = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks/${id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.webhook.previousSecretExpiresAt).toBe(new Date(kit.clock.now() + 24 * 3_600_000).toISOString());
    await kit.archivedJob();
    await kit.worker.deliverDue();
    const during = receiver.received[0]!;
    expect(during.signature.split(' ')).toHaveLength(2);
    expect(verifyWithReference(oldSecret, during, kit.clock.now())).toMatchObject({ type: 'job.archived' });
    expect(verifyWithReference(newSecret, during, kit.clock.now())).toMatchObject({ type: 'job.archived' });

    kit.clock.advance(24 * 3_600_000 + 1);
    await kit.archivedJob();
    await kit.worker.deliverDue();
    const after = receiver.received[1]!;
    expect(after.signature.split(' ')).toHaveLength(1);
    expect(verifyWithReference(newSecret, after, kit.clock.now())).toMatchObject({ type: 'job.archived' });
    expect(() => verifyWithReference(oldSecret, after, kit.clock.now())).toThrow();
    expect((await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${id}`)).body.previousSecretExpiresAt).toBeNull();
  });

  test('a worker killed after its claim loses nothing: the claim runs out and another worker sends the same message', async () => {
    kit = await createWebhookKit(dialect);
    receiver = await startWebhookReceiver([200]);
    await endpoint();
    await kit.archivedJob();
    // "Worker A" claims and dies (its process is gone: nothing renews or finishes the claim).
    const claim = await kit.services.webhookOutbox.claim('dead-worker', kit.worker.leaseMs);
    expect(claim).not.toBeNull();
    expect(await kit.worker.deliverDue()).toBe(0);
    kit.clock.advance(kit.worker.leaseMs + 1);
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(receiver.received.map((delivery) => delivery.id)).toEqual([claim!.row.id]);
    // The dead worker's late result is fenced off: it changes nothing.
    const stale = await kit.services.webhookOutbox.finish(claim!, 'dead-worker', kit.clock.now(), {
      ok: false,
      status: 500,
      body: '',
      errorCode: 'http_status',
      errorMessage: 'late',
    });
    expect(stale).toBe(false);
    const row = await kit.services.database.db.selectFrom('webhook_messages').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  test('a delivery in flight is not sent twice: a second worker finds nothing to claim', async () => {
    kit = await createWebhookKit(dialect);
    receiver = await startWebhookReceiver([200]);
    await endpoint();
    await kit.archivedJob();
    receiver.hold();
    const first = kit.worker.deliverDue();
    await expect.poll(() => receiver.received.length).toBe(1);
    const other = (await import('../../src/webhooks/start-webhook-worker.js')).createWebhookWorker(
      kit.services,
      (await import('../../src/app/logger.js')).createLogger({ level: 'silent' }),
    );
    expect(await other.deliverDue()).toBe(0);
    receiver.release();
    expect(await first).toBe(1);
    expect(receiver.received).toHaveLength(1);
  });

  test('the event filter and the enabled flag decide what is recorded', async () => {
    kit = await createWebhookKit(dialect);
    receiver = await startWebhookReceiver([200]);
    const { id } = await endpoint(['job.completed']);
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(0);
    await kit.api('PATCH', `/v1/projects/${kit.projectId}/webhooks/${id}`, { events: [] });
    await kit.api('PATCH', `/v1/projects/${kit.projectId}/webhooks/${id}`, { enabled: false });
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(0);
    await kit.api('PATCH', `/v1/projects/${kit.projectId}/webhooks/${id}`, { enabled: true });
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
  });
});
