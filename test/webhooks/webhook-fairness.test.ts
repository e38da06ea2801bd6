import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { PROJECT_CONCURRENCY } from '../../src/webhooks/webhook-fairness.js';
import { spawnWorker, type WorkerChild } from '../helpers/worker-child.js';
import { inFlightGauge, startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { createWebhookKit, LOOPBACK_ALLOWED, type ProjectClient, type WebhookKit } from './webhook-kit.js';

const OK = { ok: true, status: 200, body: 'ok', errorCode: null, errorMessage: null } as const;

/**
 * Deliveries are fair: one at a time per endpoint (in the order recorded), at most
 * PROJECT_CONCURRENCY per project over all processes, and a freed slot claims the next
 * eligible message at once. So a project whose receivers hang slows only itself.
 */
describe.each(BACKENDS)('fair webhook deliveries [%s]', (dialect) => {
  let kit: WebhookKit;
  let receivers: WebhookReceiver[] = [];
  let children: WorkerChild[] = [];
  afterEach(async () => {
    // Receivers first: closing them ends the hanging requests, which the workers' stop waits for.
    await Promise.all(receivers.map((receiver) => receiver.close()));
    receivers = [];
    await Promise.all(children.map((child) => child.kill()));
    children = [];
    await kit?.close();
  });

  async function receiver(options: Parameters<typeof startWebhookReceiver>[1] = {}): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver([200], options);
    receivers.push(started);
    return started;
  }

  async function endpoint(client: ProjectClient, url: string): Promise<string> {
    const created = await client.api('POST', `/v1/projects/${client.projectId}/webhooks`, { url });
    expect(created.status).toBe(201);
    return created.body.webhook.id as string;
  }

  const jobIdOf = (delivery: { body: string }): string => (JSON.parse(delivery.body) as { data: { jobId: string } }).data.jobId;

  test("20 hanging receivers of one project do not hold back another project's delivery", async () => {
    // The default timeout (15 s): a delivery stuck behind a hanging one would wait at least that long.
    kit = await createWebhookKit(dialect);
    const hanging = await Promise.all(Array.from({ length: 20 }, () => receiver()));
    for (const stuck of hanging) {
      stuck.hold();
      await endpoint(kit, stuck.url);
    }
    const projectB = await kit.otherProject();
    const healthy = await receiver();
    await endpoint(projectB, healthy.url);
    kit.worker.start();
    await expect.poll(() => kit.worker.state, { timeout: 20_000 }).toBe('sleeping');

    await kit.archivedJob(); // 20 messages of project A, every one of them to a receiver that never answers
    const sentToA = () => hanging.reduce((sum, stuck) => sum + stuck.received.length, 0);
    await expect.poll(sentToA, { timeout: 20_000 }).toBeGreaterThanOrEqual(PROJECT_CONCURRENCY);

    const recordedAt = Date.now();
    const jobId = await projectB.archivedJob();
    await expect.poll(() => healthy.received.length, { timeout: 5_000, interval: 20 }).toBe(1);
    expect(Date.now() - recordedAt).toBeLessThan(5_000);
    expect(jobIdOf(healthy.received[0]!)).toBe(jobId);
    // Project A still has only its share under way: the rest of its messages wait for its own slots.
    expect(sentToA()).toBe(PROJECT_CONCURRENCY);
  });

  test("one endpoint's messages go one at a time, in the order they were recorded", async () => {
    kit = await createWebhookKit(dialect);
    const slow = await receiver({ answerAfterMs: 30 });
    await endpoint(kit, slow.url);
    const jobIds: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      jobIds.push(await kit.archivedJob());
      kit.clock.advance(1);
    }
    // Four slots (the default concurrency), six messages of one endpoint: one slot works, in order.
    expect(await kit.worker.deliverDue()).toBe(6);
    expect(slow.received.map(jobIdOf)).toEqual(jobIds);
    expect(slow.gauge.peak).toBe(1);
  });

  test('a claim prefers idle projects, keeps the per-project cap and takes no busy endpoint', async () => {
    kit = await createWebhookKit(dialect);
    const projectB = await kit.otherProject();
    const endpointsA = [
      await endpoint(kit, 'http://127.0.0.1:9/a1'),
      await endpoint(kit, 'http://127.0.0.1:9/a2'),
      await endpoint(kit, 'http://127.0.0.1:9/a3'),
    ];
    const endpointB = await endpoint(projectB, 'http://127.0.0.1:9/b');
    await kit.archivedJob(); // one message for each of A's three endpoints
    kit.clock.advance(1_000);
    await projectB.archivedJob(); // B's message is due a second after A's
    const outbox = kit.services.webhookOutbox;
    const claim = () => outbox.claim('worker', kit.worker.leaseMs);

    const first = await claim();
    expect(first?.row.project_id).toBe(kit.projectId);
    // A has a delivery under way and B none: B goes first although A's messages are older.
    expect((await claim())?.row.endpoint_id).toBe(endpointB);
    const third = await claim();
    expect(third?.row.project_id).toBe(kit.projectId);
    expect(third?.row.endpoint_id).not.toBe(first?.row.endpoint_id);
    // A is at its cap (2), B's only endpoint is busy: nothing to claim, although A's third message is due.
    expect(PROJECT_CONCURRENCY).toBe(2);
    expect(await claim()).toBeNull();
    expect(await outbox.nextDueAt()).toBeNull();

    expect(await outbox.finish(first!, 'worker', kit.clock.now(), OK)).toBe(true);
    const last = await claim();
    expect(endpointsA).toContain(last?.row.endpoint_id);
    expect([first!.row.endpoint_id, third!.row.endpoint_id]).not.toContain(last?.row.endpoint_id);
  });

  test('the hourly prune of old messages runs while every slot is held by a hanging receiver', async () => {
    kit = await createWebhookKit(dialect, { ...LOOPBACK_ALLOWED, DOCWRIGHT_WEBHOOK_CONCURRENCY: '1' });
    const stuck = await receiver();
    stuck.hold();
    await endpoint(kit, stuck.url);
    kit.worker.start();
    await kit.archivedJob();
    await expect.poll(() => stuck.received.length, { timeout: 20_000 }).toBe(1);
    // A message delivered 31 days ago (the retention is 30), recorded after the start's prune.
    const { db } = kit.services.database;
    const current = await db.selectFrom('webhook_messages').selectAll().executeTakeFirstOrThrow();
    const longAgo = kit.clock.now() - 31 * 86_400_000;
    await db
      .insertInto('webhook_messages')
      .values({ ...current, id: 'msg_old', status: 'succeeded', locked_by: null, locked_until: null, created_at: longAgo, finished_at: longAgo })
      .execute();
    kit.clock.advance(3_600_000);
    kit.worker.wake(); // its only slot is busy: nothing to claim, but the hour is up
    await expect.poll(async () => (await db.selectFrom('webhook_messages').select('id').where('id', '=', 'msg_old').execute()).length).toBe(0);
    expect(stuck.received).toHaveLength(1);
  });

  test('two worker processes never deliver to one endpoint at once, nor more than the cap of one project', async () => {
    kit = await createWebhookKit(dialect);
    const project = inFlightGauge();
    // Slow answers keep the drain going for seconds, so both processes are up and claiming during it.
    const slow = await Promise.all(Array.from({ length: 3 }, () => receiver({ answerAfterMs: 300, sharedGauge: project })));
    for (const each of slow) await endpoint(kit, each.url);
    const jobIds: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      jobIds.push(await kit.archivedJob());
      kit.clock.advance(1);
    }
    // Two real `docwright worker` processes (four slots each) drain the 15 messages side by side.
    const environment = { ...LOOPBACK_ALLOWED, DOCWRIGHT_WEBHOOK_POLL_SECONDS: '0.1', DOCWRIGHT_PUBLIC_URL: 'https://docwright.example' };
    children = [spawnWorker(kit.testDatabase, environment), spawnWorker(kit.testDatabase, environment)];
    const delivered = () => slow.reduce((sum, each) => sum + each.received.length, 0);
    await expect.poll(delivered, { timeout: 60_000 }).toBe(15);
    for (const each of slow) {
      expect(each.received.map(jobIdOf)).toEqual(jobIds);
      expect(each.gauge.peak).toBe(1);
    }
    expect(project.peak).toBe(PROJECT_CONCURRENCY);
  });
});
