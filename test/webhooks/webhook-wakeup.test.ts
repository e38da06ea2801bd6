import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createLogger } from '../../src/app/logger.js';
import { createWebhookWorker } from '../../src/webhooks/start-webhook-worker.js';
import type { WebhookDeliveryWorker } from '../../src/webhooks/webhook-delivery-worker.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/webhook-outbox.js';
import { openSecondInstance, type SecondInstance } from '../helpers/second-instance.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { createWebhookKit, LOOPBACK_ALLOWED, type WebhookKit } from './webhook-kit.js';

/**
 * The safety poll is set to its maximum, 10 minutes: a delivery within the tests' time
 * can only come from a wake-up. The waits below are for an event (the receiver getting a
 * request), bounded only by vitest's timeout, so a slow machine delays them but does not
 * fail them.
 */
const SLOW_POLL = { ...LOOPBACK_ALLOWED, DOCWRIGHT_WEBHOOK_POLL_SECONDS: '600' };

async function sleepingWorker(worker: WebhookDeliveryWorker): Promise<void> {
  worker.start();
  // The first round (nothing due) must be over, or it, not a wake-up, would find the message.
  await expect.poll(() => worker.state, { timeout: 20_000 }).toBe('sleeping');
}

describe.each(BACKENDS)('delivery workers wake up [%s]', (dialect) => {
  let kit: WebhookKit;
  let receiver: WebhookReceiver;
  let second: SecondInstance | undefined;
  let otherWorker: WebhookDeliveryWorker | undefined;
  afterEach(async () => {
    await otherWorker?.stop();
    await second?.close();
    otherWorker = undefined;
    second = undefined;
    await kit?.close();
    await receiver?.close();
  });

  async function endpoint(): Promise<string> {
    const created = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: receiver.url });
    expect(created.status).toBe(201);
    return created.body.webhook.id as string;
  }

  test('a new event wakes the worker of the same process at once, not at its 10-minute poll', async () => {
    kit = await createWebhookKit(dialect, SLOW_POLL);
    receiver = await startWebhookReceiver([204]);
    const webhookId = await endpoint();
    await sleepingWorker(kit.worker);
    const jobId = await kit.archivedJob();
    const delivery = await receiver.nextDelivery();
    expect(JSON.parse(delivery.body)).toMatchObject({ type: 'job.archived', data: { jobId } });
    await expect
      .poll(async () => (await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${webhookId}/deliveries`)).body.messages[0].status)
      .toBe('succeeded');
    expect(kit.worker.state).not.toBe('stopped');
  });

  test('a redelivery wakes it too, and a failed attempt is retried when due rather than at the poll', async () => {
    kit = await createWebhookKit(dialect, SLOW_POLL);
    receiver = await startWebhookReceiver([500, 200]);
    const webhookId = await endpoint();
    await sleepingWorker(kit.worker);
    await kit.archivedJob();
    const first = await receiver.nextDelivery();
    // The manual clock stands still: the retry is due RETRY_DELAYS_MS[0] of it after the failure.
    await expect.poll(() => kit.worker.state).toBe('sleeping');
    kit.clock.advance(RETRY_DELAYS_MS[0]!);
    expect((await receiver.nextDelivery()).id).toBe(first.id);

    receiver.statuses = [200];
    await expect.poll(() => kit.worker.state).toBe('sleeping');
    const redelivered = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks/${webhookId}/deliveries/${first.id}/redeliver`);
    expect(redelivered.status).toBe(202);
    expect((await receiver.nextDelivery()).id).toBe(first.id);
    expect(receiver.received).toHaveLength(3);
  });

  test.runIf(dialect === 'postgres')('an event recorded by another process wakes this one through NOTIFY', async () => {
    kit = await createWebhookKit(dialect, SLOW_POLL);
    receiver = await startWebhookReceiver([204]);
    await endpoint();
    // The kit's app records the event; only the second instance, with its own notifier and LISTEN connection, delivers.
    second = await openSecondInstance(kit);
    otherWorker = createWebhookWorker(second.services, createLogger({ level: 'silent' }));
    await sleepingWorker(otherWorker);
    const jobId = await kit.archivedJob();
    expect(JSON.parse((await receiver.nextDelivery()).body)).toMatchObject({ type: 'job.archived', data: { jobId } });
    expect(kit.worker.state).toBe('stopped');
  });
});
