import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { spawnWorker, type WorkerChild } from '../helpers/worker-child.js';
import { createWebhookKit, LOOPBACK_ALLOWED, type WebhookKit } from './webhook-kit.js';
import { startWebhookReceiver, verifyWithReference, type WebhookReceiver } from './webhook-receiver.js';

/**
 * A real `docwright worker` process is SIGKILLed while its delivery waits for the
 * receiver's answer. Nothing is lost: once the claim's lease has run out, another worker
 * sends the same message (same webhook-id, same body) and it is marked delivered once.
 */
describe.each(BACKENDS)('a webhook worker killed mid-delivery [%s]', (dialect) => {
  let kit: WebhookKit;
  let receiver: WebhookReceiver;
  let child: WorkerChild | null = null;
  afterEach(async () => {
    await child?.kill();
    child = null;
    await kit?.close();
    await receiver?.close();
  });

  test('the event is sent again by another worker with the same webhook-id', async () => {
    const environment = { ...LOOPBACK_ALLOWED, DOCWRIGHT_WEBHOOK_TIMEOUT_SECONDS: '30', DOCWRIGHT_WEBHOOK_POLL_SECONDS: '0.1' };
    kit = await createWebhookKit(dialect, environment);
    receiver = await startWebhookReceiver([200]);
    const created = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: receiver.url });
    const secret = created.body.secret as string;
    receiver.hold();
    child = spawnWorker(kit.testDatabase, { ...environment, DOCWRIGHT_PUBLIC_URL: 'https://docwright.example' });
    await kit.archivedJob();
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(1);
    await child.kill();
    receiver.release();

    // The dead worker's claim holds until its lease (by the wall clock it was taken with) runs out.
    const [row] = await kit.services.database.db.selectFrom('webhook_messages').selectAll().execute();
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row!.locked_until).toBeGreaterThan(Date.now());
    kit.clock.set(row!.locked_until!);
    expect(await kit.worker.deliverDue()).toBe(0);
    kit.clock.set(row!.locked_until! + 1);
    expect(await kit.worker.deliverDue()).toBe(1);

    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.id).toBe(receiver.received[0]!.id);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect(verifyWithReference(secret, receiver.received[1]!, kit.clock.now())).toMatchObject({ type: 'job.archived' });
    const done = await kit.services.database.db.selectFrom('webhook_messages').selectAll().executeTakeFirstOrThrow();
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
    const attempts = await kit.services.database.db.selectFrom('webhook_attempts').selectAll().execute();
    expect(attempts).toMatchObject([{ attempt: 2, outcome: 'succeeded' }]);
  });
});
