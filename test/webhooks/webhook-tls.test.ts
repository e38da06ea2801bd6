import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { BACKENDS } from '../helpers/test-database.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/webhook-outbox.js';
import type { WebhookResolver } from '../../src/webhooks/webhook-http.js';
import { startWebhookReceiver, verifyWithReference, type WebhookReceiver } from './webhook-receiver.js';
import { createWebhookKit, type WebhookKit } from './webhook-kit.js';
import { TestCertificates } from './test-certificates.js';

/** The receiver's name; the tests' resolver answers it with loopback, the address it listens on. */
const NAME = 'hooks.docwright.test';
const toLoopback: WebhookResolver = (hostname) =>
  hostname === NAME
    ? Promise.resolve([{ address: '127.0.0.1', family: 4 }])
    : Promise.reject(Object.assign(new Error(`no test address for ${hostname}`), { code: 'ENOTFOUND' }));
/** https (no plain http) to loopback: only the allowed network differs from production. */
const HTTPS_LOOPBACK = { DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };

describe.each(BACKENDS)('webhooks to a TLS receiver [%s]', (dialect) => {
  let certificates: TestCertificates;
  let kit: WebhookKit;
  let receiver: WebhookReceiver;
  beforeAll(() => {
    certificates = new TestCertificates();
  });
  afterAll(() => certificates.remove());
  afterEach(async () => {
    await kit?.close();
    await receiver?.close();
  });

  async function endpoint(): Promise<{ id: string; secret: string }> {
    const created = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: receiver.url });
    expect(created.status).toBe(201);
    return { id: created.body.webhook.id, secret: created.body.secret };
  }

  async function onlyAttempt(webhookId: string): Promise<Record<string, unknown>> {
    const log = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${webhookId}/deliveries`);
    const detail = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${webhookId}/deliveries/${log.body.messages[0].id}`);
    return detail.body;
  }

  test('a certificate from the CA in DOCWRIGHT_WEBHOOK_CA_FILE is trusted; SNI names the URL host although the socket went to the checked address', async () => {
    kit = await createWebhookKit(dialect, { ...HTTPS_LOOPBACK, DOCWRIGHT_WEBHOOK_CA_FILE: certificates.caFile }, { resolve: toLoopback });
    receiver = await startWebhookReceiver([204], { tls: certificates.issue(NAME), urlHost: NAME });
    expect(receiver.url).toMatch(/^https:\/\/hooks\.docwright\.test:\d+\/hooks$/);
    const { id, secret } = await endpoint();
    const jobId = await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    expect(delivery!.servername).toBe(NAME);
    expect(verifyWithReference(secret, delivery!, kit.clock.now())).toMatchObject({ type: 'job.archived', data: { jobId } });
    expect(await onlyAttempt(id)).toMatchObject({ status: 'succeeded', attempts: 1, lastError: null });
  });

  test('a self-signed certificate nobody configured fails the attempt with certificate_invalid and is retried', async () => {
    kit = await createWebhookKit(dialect, { ...HTTPS_LOOPBACK, DOCWRIGHT_WEBHOOK_CA_FILE: certificates.caFile }, { resolve: toLoopback });
    receiver = await startWebhookReceiver([204], { tls: certificates.selfSigned(NAME), urlHost: NAME });
    const { id } = await endpoint();
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    // The handshake failed before any request: the receiver saw nothing.
    expect(receiver.received).toHaveLength(0);
    const detail = await onlyAttempt(id);
    expect(detail).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: new Date(kit.clock.now() + RETRY_DELAYS_MS[0]!).toISOString() });
    const [attempt] = detail.attemptLog as Array<Record<string, unknown>>;
    expect(attempt).toMatchObject({ outcome: 'failed', responseStatus: null, errorCode: 'certificate_invalid' });
    expect(attempt!.errorMessage).toMatch(/certificate of hooks\.docwright\.test is not trusted .*DOCWRIGHT_WEBHOOK_CA_FILE.*SELF_SIGNED/);
    kit.clock.advance(RETRY_DELAYS_MS[0]!);
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(await onlyAttempt(id)).toMatchObject({ status: 'pending', attempts: 2 });
  });

  test("without DOCWRIGHT_WEBHOOK_CA_FILE a private CA's certificate is not trusted (Node's public roots only)", async () => {
    kit = await createWebhookKit(dialect, HTTPS_LOOPBACK, { resolve: toLoopback });
    receiver = await startWebhookReceiver([204], { tls: certificates.issue(NAME), urlHost: NAME });
    const { id } = await endpoint();
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(0);
    expect(await onlyAttempt(id)).toMatchObject({ status: 'pending', lastError: expect.stringMatching(/^certificate_invalid: .*not trusted/) });
  });

  test('a trusted certificate for another name fails: the name checked is the URL host, not the pinned address', async () => {
    kit = await createWebhookKit(dialect, { ...HTTPS_LOOPBACK, DOCWRIGHT_WEBHOOK_CA_FILE: certificates.caFile }, { resolve: toLoopback });
    // Issued for other.docwright.test and for the address itself: neither is the URL's name.
    receiver = await startWebhookReceiver([204], { tls: certificates.issue('other.docwright.test', '127.0.0.1'), urlHost: NAME });
    const { id } = await endpoint();
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(0);
    const detail = await onlyAttempt(id);
    expect(detail.lastError).toMatch(
      /^certificate_invalid: The TLS certificate of hooks\.docwright\.test is not issued for hooks\.docwright\.test: ERR_TLS_CERT_ALTNAME_INVALID/,
    );
  });
});

describe('DOCWRIGHT_WEBHOOK_CA_FILE', () => {
  const directory = mkdtempSync(join(tmpdir(), 'docwright-ca-'));
  const load = (file: string) => loadConfig({ DOCWRIGHT_DATA_DIR: directory, DOCWRIGHT_WEBHOOK_CA_FILE: file });

  test('unset, the default store stays; set, its certificates are loaded', () => {
    const certificates = new TestCertificates();
    const second = new TestCertificates('Second CA');
    try {
      expect(loadConfig({ DOCWRIGHT_DATA_DIR: directory }).webhooks.caCertificates).toBeNull();
      const bundle = join(directory, 'bundle.pem');
      writeFileSync(bundle, `# two CAs\n${certificates.ca.cert}${second.ca.cert}`);
      expect(load(bundle).webhooks.caCertificates).toHaveLength(2);
    } finally {
      certificates.remove();
      second.remove();
    }
  });

  test.each([
    ['a missing file', 'missing.pem', null, /cannot read .*missing\.pem/],
    ['a file without a certificate', 'empty.pem', 'not a certificate', /holds no PEM certificate/],
    ['a broken certificate', 'broken.pem', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', /certificate 1 of .* does not parse/],
  ])('%s stops start-up with a clear message', (_name, file, content, message) => {
    const path = join(directory, file);
    if (content !== null) writeFileSync(path, content);
    expect(() => load(path)).toThrow(ConfigError);
    expect(() => load(path)).toThrow(message);
  });
});
