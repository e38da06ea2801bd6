import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { WebhookNetworkPolicy } from '../../src/webhooks/webhook-network-policy.js';
import { MAX_RESPONSE_BYTES, sendWebhook, STORED_BODY_CHARS } from '../../src/webhooks/webhook-http.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { createWebhookKit, type WebhookKit } from './webhook-kit.js';

const strict = new WebhookNetworkPolicy({ allowHttp: false, allowedNetworks: [] });
const loopback = new WebhookNetworkPolicy({ allowHttp: true, allowedNetworks: ['127.0.0.0/8'] });
const limits = { connectTimeoutMs: 2_000, timeoutMs: 5_000 };
const request = (url: string) => ({ url, headers: { 'content-type': 'application/json' }, body: '{}' });

describe('the network policy', () => {
  test.each([
    ['http://hooks.example.com/', 'must be an https:// URL'],
    ['https://127.0.0.1/', 'private, loopback or link-local'],
    ['https://10.1.2.3/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://100.64.0.1/', 'private'],
    ['https://0.0.0.0/', 'private'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[::ffff:a9fe:a9fe]/', 'link-local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[fd12:3456::1]/', 'private'],
    ['https://user:pass@hooks.example.com/', 'user name or password'],
  ])('%s is refused', (url, reason) => {
    expect(strict.refuseUrl(new URL(url))).toContain(reason);
  });

  test('public addresses and names pass the URL check (names are checked when resolved)', () => {
    expect(strict.refuseUrl(new URL('https://93.184.216.34/hook'))).toBeNull();
    expect(strict.refuseUrl(new URL('https://[2606:4700::1111]/hook'))).toBeNull();
    expect(strict.refuseUrl(new URL('https://hooks.example.com/hook'))).toBeNull();
  });

  test('an allowed network opens only itself', () => {
    expect(loopback.refusesAddress('127.0.0.1')).toBe(false);
    expect(loopback.refusesAddress('::ffff:127.0.0.1')).toBe(false);
    expect(loopback.refusesAddress('10.0.0.1')).toBe(true);
    expect(loopback.refusesAddress('::1')).toBe(true);
    expect(loopback.refuseUrl(new URL('http://127.0.0.1:8080/'))).toBeNull();
  });
});

describe('the sender', () => {
  let receiver: WebhookReceiver;
  const servers: Array<{ close(): void; closeAllConnections(): void }> = [];
  afterEach(async () => {
    await receiver?.close();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });

  test('a name that resolves to a refused address is never connected to', async () => {
    receiver = await startWebhookReceiver([200]);
    const http = new WebhookNetworkPolicy({ allowHttp: true, allowedNetworks: [] });
    const result = await sendWebhook(request(`http://localhost:${receiver.port}/hooks`), http, limits);
    expect(result).toMatchObject({ ok: false, status: null, errorCode: 'address_refused' });
    expect(result.errorMessage).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
    expect(receiver.received).toHaveLength(0);
  });

  test('the same name is delivered to once its network is allowed', async () => {
    receiver = await startWebhookReceiver([200]);
    const allowed = new WebhookNetworkPolicy({ allowHttp: true, allowedNetworks: ['127.0.0.0/8', '::1/128'] });
    expect(await sendWebhook(request(`http://localhost:${receiver.port}/hooks`), allowed, limits)).toMatchObject({ ok: true, status: 200 });
    expect(receiver.received).toHaveLength(1);
  });

  test('a redirect is not followed', async () => {
    receiver = await startWebhookReceiver([200]);
    const redirecting = createServer((_request, response) => {
      response.writeHead(307, { location: receiver.url });
      response.end();
    });
    servers.push(redirecting);
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const result = await sendWebhook(request(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`), loopback, limits);
    expect(result).toMatchObject({ ok: false, status: 307, errorCode: 'redirect_not_followed' });
    expect(receiver.received).toHaveLength(0);
  });

  test('a receiver that does not answer in time fails the attempt', async () => {
    receiver = await startWebhookReceiver([200]);
    receiver.hold();
    const result = await sendWebhook(request(receiver.url), loopback, { connectTimeoutMs: 2_000, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, errorCode: 'timeout' });
    receiver.release();
  });

  test('a huge answer is cut off; only its start is kept', async () => {
    const chatty = createServer((_request, response) => {
      response.writeHead(200);
      const chunk = 'x'.repeat(64 * 1024);
      // Far more than the cap, written as long as the socket takes it.
      const write = () => {
        while (response.write(chunk)) if (response.writableLength > 16 * MAX_RESPONSE_BYTES) break;
      };
      response.on('drain', write);
      write();
    });
    servers.push(chatty);
    await new Promise<void>((resolve) => chatty.listen(0, '127.0.0.1', resolve));
    const result = await sendWebhook(request(`http://127.0.0.1:${(chatty.address() as AddressInfo).port}/`), loopback, limits);
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.body).toHaveLength(STORED_BODY_CHARS);
  });
});

describe.each(BACKENDS)('a receiver on a refused address [%s]', (dialect) => {
  let kit: WebhookKit;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await kit?.close();
    await receiver?.close();
  });

  test('refused at creation when the URL names the address, at delivery when a name resolves to it', async () => {
    kit = await createWebhookKit(dialect, { DOCWRIGHT_WEBHOOK_ALLOW_HTTP: 'on' });
    receiver = await startWebhookReceiver([200]);
    const literal = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: receiver.url });
    expect(literal.status).toBe(400);
    expect(literal.headers['content-type']).toContain('application/problem+json');
    expect(literal.body).toMatchObject({ code: 'webhook_url_refused' });

    const named = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: `http://localhost:${receiver.port}/hooks` });
    expect(named.status).toBe(201);
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(0);
    const log = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${named.body.webhook.id}/deliveries`);
    const messageId = log.body.messages[0].id as string;
    const detail = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${named.body.webhook.id}/deliveries/${messageId}`);
    expect(detail.body).toMatchObject({ status: 'pending', attempts: 1 });
    expect(detail.body.attemptLog).toMatchObject([{ outcome: 'failed', responseStatus: null, errorCode: 'address_refused' }]);
  });
});

describe('webhook settings', () => {
  test('allowed networks must be CIDRs; the defaults are strict', async () => {
    const { parseEnvironment, loadConfig } = await import('../../src/config/load-config.js');
    expect(() => parseEnvironment({ DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8,banana' })).toThrow(
      /DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: must be a comma-separated list of CIDRs/,
    );
    expect(() => parseEnvironment({ DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33' })).toThrow(/CIDRs/);
    expect(() => parseEnvironment({ DOCWRIGHT_WEBHOOK_ALLOW_HTTP: 'yes' })).toThrow(/DOCWRIGHT_WEBHOOK_ALLOW_HTTP/);
    const config = loadConfig({
      DOCWRIGHT_SECRET: 'x'.repeat(40),
      DOCWRIGHT_DATA_DIR: '/tmp/docwright-webhook-config',
      DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: ' fd00::/8 , 10.20.0.0/16',
    });
    expect(config.webhooks).toMatchObject({
      allowHttp: false,
      allowedNetworks: ['fd00::/8', '10.20.0.0/16'],
      timeoutMs: 15_000,
      connectTimeoutMs: 5_000,
      secretOverlapMs: 86_400_000,
    });
  });
});
