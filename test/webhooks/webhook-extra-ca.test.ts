import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { spawnWorker, type WorkerChild } from '../helpers/worker-child.js';
import { createWebhookKit, type WebhookKit } from './webhook-kit.js';
import { startWebhookReceiver, verifyWithReference, type WebhookReceiver } from './webhook-receiver.js';
import { TestCertificates } from './test-certificates.js';

/**
 * Without DOCWRIGHT_WEBHOOK_CA_FILE, webhooks use Node's default store, which a process
 * started with NODE_EXTRA_CA_CERTS extends: a real `docwright worker` process, the system
 * resolver (`localhost`), a receiver whose certificate only that extra CA vouches for.
 */
describe.each(BACKENDS)('NODE_EXTRA_CA_CERTS [%s]', (dialect) => {
  let certificates: TestCertificates;
  let kit: WebhookKit;
  let receiver: WebhookReceiver;
  let child: WorkerChild | null = null;
  beforeAll(() => {
    certificates = new TestCertificates();
  });
  afterAll(() => certificates.remove());
  afterEach(async () => {
    await child?.kill();
    child = null;
    await kit?.close();
    await receiver?.close();
  });

  test('a worker process started with it delivers to a receiver of that CA, the name checked being localhost', async () => {
    const environment = { DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128', DOCWRIGHT_WEBHOOK_POLL_SECONDS: '0.2' };
    kit = await createWebhookKit(dialect, environment);
    receiver = await startWebhookReceiver([204], { tls: certificates.issue('localhost'), urlHost: 'localhost' });
    const created = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: receiver.url });
    expect(created.status).toBe(201);
    child = spawnWorker(kit.testDatabase, { ...environment, DOCWRIGHT_PUBLIC_URL: 'https://docwright.example', NODE_EXTRA_CA_CERTS: certificates.caFile });
    await kit.archivedJob();
    await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(1);
    const [delivery] = receiver.received;
    expect(delivery!.servername).toBe('localhost');
    // The child process signs with the real clock.
    expect(verifyWithReference(created.body.secret as string, delivery!, Date.now())).toMatchObject({ type: 'job.archived' });
  });
});
