import { describe, expect, test } from 'vitest';
import { isPublicAddress } from '../../src/analytics/verification/address-guard.js';
import { guardedFetch } from '../../src/analytics/verification/guarded-fetch.js';
import { sendWebhook } from '../../src/webhooks/webhook-http.js';
import { WebhookNetworkPolicy } from '../../src/webhooks/webhook-network-policy.js';

/**
 * Both features whose outgoing requests a user or a request names (webhooks, Web Bot Auth
 * key directories) refuse the same non-public networks, including the IPv6 forms that
 * tunnel or translate to an IPv4 address. Every check here fails before a connection is
 * made: nothing leaves the machine.
 */
const REFUSED: Array<[string, string]> = [
  ['6to4 (2002::/16) of 192.168.1.1', '2002:c0a8:101::1'],
  ['6to4 (2002::/16) of a public address', '2002:808:808::1'],
  ['Teredo (2001::/32)', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ['IPv4-compatible (::/96) of 10.0.0.1', '::10.0.0.1'],
  ['IPv4-compatible (::/96), hex', '::a9fe:a9fe'],
  ['IPv4-mapped (::ffff:0:0/96) of 10.0.0.1', '::ffff:10.0.0.1'],
  ['IPv4-mapped of 169.254.169.254, hex', '::ffff:a9fe:a9fe'],
  ['IPv4-mapped of 127.0.0.1, written out in full', '0:0:0:0:0:ffff:7f00:0001'],
  ['NAT64 (64:ff9b::/96) of 10.0.0.1', '64:ff9b::a00:1'],
  ['local-use NAT64 (64:ff9b:1::/48)', '64:ff9b:1::a00:1'],
  ['6to4 relay anycast (192.88.99.0/24)', '192.88.99.1'],
  ['loopback', '::1'],
  ['unspecified', '::'],
];

const PUBLIC = ['8.8.8.8', '::ffff:8.8.8.8', '0:0:0:0:0:ffff:0808:0808', '2001:4860:4860::8888', '2003::1', '2606:4700::1111'];

const webhooks = new WebhookNetworkPolicy({ allowHttp: false, allowedNetworks: [] });
const literal = (address: string): string => (address.includes(':') ? `[${address}]` : address);
const answer = (address: string) => [{ address, family: address.includes(':') ? 6 : 4 }];

describe.each(REFUSED)('%s (%s) is refused', (_name, address) => {
  test('by webhooks: as a URL literal, as a resolved address, and by the sender', async () => {
    expect(webhooks.refuseUrl(new URL(`https://${literal(address)}/hooks`))).toContain('private, loopback or link-local');
    expect(webhooks.refusesAddress(address)).toBe(true);
    const sent = await sendWebhook(
      { url: 'https://hooks.example.com/hooks', headers: { 'content-type': 'application/json' }, body: '{}' },
      webhooks,
      { connectTimeoutMs: 1_000, timeoutMs: 2_000 },
      { resolve: () => Promise.resolve(answer(address)) },
    );
    expect(sent).toMatchObject({ ok: false, errorCode: 'address_refused' });
  });

  test('by key-directory fetches: as a resolved address, and by the fetch', async () => {
    expect(isPublicAddress(address)).toBe(false);
    expect(isPublicAddress(address, true)).toBe(address === '::1' || address === '0:0:0:0:0:ffff:7f00:0001');
    await expect(
      guardedFetch('https://agent.example/.well-known/http-message-signatures-directory', {
        maxBytes: 1_000,
        timeoutMs: 1_000,
        resolve: () => Promise.resolve(answer(address)),
      }),
    ).rejects.toThrow(/private, loopback or link-local/);
  });
});

test('public addresses, IPv4-mapped ones judged by their IPv4 address, pass both', () => {
  for (const address of PUBLIC) {
    expect(webhooks.refusesAddress(address), address).toBe(false);
    expect(webhooks.refuseUrl(new URL(`https://${literal(address)}/hooks`)), address).toBeNull();
    expect(isPublicAddress(address), address).toBe(true);
  }
});
