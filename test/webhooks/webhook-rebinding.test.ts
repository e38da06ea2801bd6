import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/webhook-outbox.js';
import { createWebhookKit, type WebhookKit } from './webhook-kit.js';
import { WebhookNetworkPolicy } from '../../src/webhooks/webhook-network-policy.js';
import { sendWebhook, type WebhookResolver } from '../../src/webhooks/webhook-http.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

/**
 * DNS rebinding: a name whose answer changes between the check and the connect. 127.0.0.1
 * stands in for the public address the policy lets through (it is the only allowed
 * network); 127.0.0.2, on the same port, for the private one the attacker rebinds to.
 */
const policy = new WebhookNetworkPolicy({ allowHttp: true, allowedNetworks: ['127.0.0.1/32'] });
const limits = { connectTimeoutMs: 2_000, timeoutMs: 5_000 };
const NAME = 'rebind.docwright.test';
const post = (port: number) => ({ url: `http://${NAME}:${port}/hooks`, headers: { 'content-type': 'application/json' }, body: '{}' });

/** Answers NAME with each list of `answers` in turn (the last repeats), counting the calls. */
function scriptedResolver(answers: LookupAddress[][]): WebhookResolver & { calls: number } {
  const resolve = Object.assign(
    (hostname: string) => {
      const answer = answers[Math.min(resolve.calls, answers.length - 1)]!;
      resolve.calls += 1;
      return hostname === NAME ? Promise.resolve(answer) : Promise.reject(new Error(`unexpected name ${hostname}`));
    },
    { calls: 0 },
  );
  return resolve;
}

describe('DNS rebinding', () => {
  let checked: WebhookReceiver;
  let rebound: WebhookReceiver;
  afterEach(async () => {
    await checked?.close();
    await rebound?.close();
  });

  async function receivers(): Promise<void> {
    checked = await startWebhookReceiver([200], { host: '127.0.0.1' });
    rebound = await startWebhookReceiver([200], { host: '127.0.0.2', port: checked.port });
  }

  test('the connection goes to the address that was checked, never to a later answer', async () => {
    await receivers();
    const resolve = scriptedResolver([[{ address: '127.0.0.1', family: 4 }], [{ address: '127.0.0.2', family: 4 }]]);
    expect(await sendWebhook(post(checked.port), policy, limits, { resolve })).toMatchObject({ ok: true, status: 200 });
    // One resolution per attempt: the connect was handed that answer, it did not ask again.
    expect(resolve.calls).toBe(1);
    expect(checked.received).toHaveLength(1);
    expect(rebound.received).toHaveLength(0);

    // The next attempt sees the rebound answer, checks it, and goes nowhere.
    const second = await sendWebhook(post(checked.port), policy, limits, { resolve });
    expect(second).toMatchObject({ ok: false, status: null, errorCode: 'address_refused' });
    expect(second.errorMessage).toBe(`${NAME} resolves to 127.0.0.2, which webhooks may not reach.`);
    expect(resolve.calls).toBe(2);
    expect(checked.received).toHaveLength(1);
    expect(rebound.received).toHaveLength(0);
  });

  test.each([
    [
      'a private address after the allowed one',
      [
        { address: '127.0.0.1', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
      '10.0.0.5',
    ],
    [
      'a private address before the allowed one',
      [
        { address: '127.0.0.2', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      '127.0.0.2',
    ],
    [
      'an IPv4-mapped metadata address among them',
      [
        { address: '127.0.0.1', family: 4 },
        { address: '::ffff:169.254.169.254', family: 6 },
      ],
      '::ffff:169.254.169.254',
    ],
  ])('a name with several addresses, %s, is refused outright', async (_name, answer, refusedAddress) => {
    await receivers();
    const resolve = scriptedResolver([answer]);
    const result = await sendWebhook(post(checked.port), policy, limits, { resolve });
    expect(result).toMatchObject({ ok: false, status: null, errorCode: 'address_refused' });
    expect(result.errorMessage).toBe(`${NAME} resolves to ${refusedAddress}, which webhooks may not reach.`);
    // Not even the allowed address is tried: the whole answer is refused.
    expect(checked.received).toHaveLength(0);
    expect(rebound.received).toHaveLength(0);
  });

  test('an answer with no address is refused, and a resolver failure is a failed connection', async () => {
    await receivers();
    expect(await sendWebhook(post(checked.port), policy, limits, { resolve: scriptedResolver([[]]) })).toMatchObject({ errorCode: 'address_refused' });
    const failing: WebhookResolver = () => Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${NAME}`), { code: 'ENOTFOUND' }));
    expect(await sendWebhook(post(checked.port), policy, limits, { resolve: failing })).toMatchObject({
      ok: false,
      errorCode: 'connection_failed',
      errorMessage: `ENOTFOUND: getaddrinfo ENOTFOUND ${NAME}`,
    });
  });
});

describe.each(BACKENDS)('a rebinding name through the delivery worker [%s]', (dialect) => {
  let kit: WebhookKit;
  let checked: WebhookReceiver;
  let rebound: WebhookReceiver;
  afterEach(async () => {
    await kit?.close();
    await checked?.close();
    await rebound?.close();
  });

  test('the retry after a rebinding is logged as address_refused; the rebound address never hears from Docwright', async () => {
    const resolve = scriptedResolver([[{ address: '127.0.0.1', family: 4 }], [{ address: '127.0.0.2', family: 4 }]]);
    kit = await createWebhookKit(dialect, { DOCWRIGHT_WEBHOOK_ALLOW_HTTP: 'on', DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' }, { resolve });
    checked = await startWebhookReceiver([503], { host: '127.0.0.1' });
    rebound = await startWebhookReceiver([200], { host: '127.0.0.2', port: checked.port });
    const created = await kit.api('POST', `/v1/projects/${kit.projectId}/webhooks`, { url: post(checked.port).url });
    expect(created.status).toBe(201);
    await kit.archivedJob();
    expect(await kit.worker.deliverDue()).toBe(1);
    kit.clock.advance(RETRY_DELAYS_MS[0]!);
    expect(await kit.worker.deliverDue()).toBe(1);
    expect(checked.received).toHaveLength(1);
    expect(rebound.received).toHaveLength(0);
    const webhookId = created.body.webhook.id as string;
    const detail = await kit.api('GET', `/v1/projects/${kit.projectId}/webhooks/${webhookId}/deliveries/${checked.received[0]!.id}`);
    expect(detail.body.attemptLog.map((attempt: { errorCode: string; responseStatus: number | null }) => [attempt.errorCode, attempt.responseStatus])).toEqual([
      ['http_status', 503],
      ['address_refused', null],
    ]);
    expect(detail.body.status).toBe('pending');
  });
});
