import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { isPublicAddress } from '../../../src/analytics/verification/address-guard.js';
import { freshnessSeconds, guardedFetch } from '../../../src/analytics/verification/guarded-fetch.js';
import { KeyDirectoryCache } from '../../../src/analytics/verification/key-directory-cache.js';
import { startFakeKeyDirectory, TestSigner, type FakeKeyDirectory } from '../../fakes/web-bot-auth-signer.js';

const DIRECTORY = '/.well-known/http-message-signatures-directory';
const toLoopback = (): Promise<Array<{ address: string; family: number }>> => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);

describe('key directory fetcher', () => {
  const signer = new TestSigner();
  let server: FakeKeyDirectory;
  let url: string;
  beforeAll(async () => {
    server = await startFakeKeyDirectory([signer]);
    url = `http://agent.example:${server.port}`;
  });
  afterAll(() => server.close());

  const cache = (clock: ManualClock, extra: Partial<ConstructorParameters<typeof KeyDirectoryCache>[0]> = {}): KeyDirectoryCache =>
    new KeyDirectoryCache({ clock, allowLoopback: true, resolve: toLoopback, ...extra });

  it('refuses private, loopback, link-local and unique-local addresses unless loopback is allowed', async () => {
    for (const address of [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '127.0.0.1',
      '100.64.0.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '0.0.0.0',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('2001:4860:4860::8888')).toBe(true);
    expect(isPublicAddress('127.0.0.1', true)).toBe(true);
    expect(isPublicAddress('10.1.2.3', true)).toBe(false);
    const fetchVia = (address: string, allowLoopback = false): Promise<unknown> =>
      guardedFetch(`https://agent.example${DIRECTORY}`, {
        maxBytes: 1_000,
        timeoutMs: 1_000,
        allowLoopback,
        resolve: () => Promise.resolve([{ address, family: address.includes(':') ? 6 : 4 }]),
      });
    await expect(fetchVia('169.254.169.254')).rejects.toThrow(/private, loopback or link-local/);
    await expect(fetchVia('127.0.0.1')).rejects.toThrow(/private, loopback or link-local/);
    await expect(fetchVia('fd12::1')).rejects.toThrow(/private, loopback or link-local/);
    // One bad answer among good ones is refused too: the connection could land on either.
    await expect(
      guardedFetch(`https://agent.example${DIRECTORY}`, {
        maxBytes: 1_000,
        timeoutMs: 1_000,
        resolve: () =>
          Promise.resolve([
            { address: '8.8.8.8', family: 4 },
            { address: '10.0.0.1', family: 4 },
          ]),
      }),
    ).rejects.toThrow(/private/);
  });

  it('fetches over https only; plain http only to loopback under the test setting', async () => {
    const publicResolve = (): Promise<Array<{ address: string; family: number }>> => Promise.resolve([{ address: '8.8.8.8', family: 4 }]);
    await expect(guardedFetch(`http://agent.example${DIRECTORY}`, { maxBytes: 1_000, timeoutMs: 1_000, resolve: publicResolve })).rejects.toThrow(/not https/);
    const ok = await guardedFetch(`${url}${DIRECTORY}`, { maxBytes: 10_000, timeoutMs: 2_000, allowLoopback: true, resolve: toLoopback });
    expect(ok.status).toBe(200);
  });

  it('enforces the size limit and the time limit', async () => {
    const before = { ...server.reply };
    try {
      server.reply.body = JSON.stringify({ keys: [signer.jwk], padding: 'x'.repeat(100_000) });
      await expect(guardedFetch(`${url}${DIRECTORY}`, { maxBytes: 65_536, timeoutMs: 2_000, allowLoopback: true, resolve: toLoopback })).rejects.toThrow(
        /more than 65536/,
      );
      server.reply.body = before.body;
      server.reply.delayMs = 500;
      await expect(guardedFetch(`${url}${DIRECTORY}`, { maxBytes: 65_536, timeoutMs: 100, allowLoopback: true, resolve: toLoopback })).rejects.toThrow(
        /within 100 ms/,
      );
    } finally {
      Object.assign(server.reply, before);
    }
  });

  it('honours Cache-Control: a fresh directory is not fetched again, a stale one is', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24));
    const keys = cache(clock);
    server.hits.clear();
    server.reply.headers['cache-control'] = 'max-age=3600';
    keys.request(url);
    await keys.settled();
    expect(server.hits.get(DIRECTORY)).toBe(1);
    const state = keys.directory(url);
    expect(state.state === 'ready' && state.key(signer.keyId) !== null).toBe(true);
    clock.advance(3_000_000);
    keys.directory(url);
    keys.request(url);
    await keys.settled();
    expect(server.hits.get(DIRECTORY)).toBe(1);
    clock.advance(700_000);
    // Stale: still served while fetched again in the background.
    expect(keys.directory(url).state).toBe('ready');
    await keys.settled();
    expect(server.hits.get(DIRECTORY)).toBe(2);
  });

  it('reads freshness from max-age, no-store and Expires', () => {
    const now = Date.UTC(2026, 10, 24);
    expect(freshnessSeconds({ 'cache-control': 'public, max-age=600' }, now)).toBe(600);
    expect(freshnessSeconds({ 'cache-control': 'no-store' }, now)).toBe(0);
    expect(freshnessSeconds({ expires: new Date(now + 120_000).toUTCString() }, now)).toBe(120);
    expect(freshnessSeconds({}, now)).toBeNull();
  });

  it('remembers a failed directory for a while, keeps a known one through an outage, and stays bounded', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24));
    const keys = cache(clock, { maxDirectories: 2 });
    keys.request(url);
    await keys.settled();
    const before = { ...server.reply };
    try {
      server.reply.status = 503;
      clock.advance(2 * 86_400_000);
      keys.request(url);
      await keys.settled();
      expect(keys.directory(url).state).toBe('ready');
      keys.request(`http://gone.example:${server.port}`);
      await keys.settled();
      expect(keys.directory(`http://gone.example:${server.port}`).state).toBe('failed');
      keys.request(`http://third.example:${server.port}`);
      await keys.settled();
      expect(keys.snapshot()).toHaveLength(2);
    } finally {
      Object.assign(server.reply, before);
    }
  });

  it('files keys under their computed thumbprint, never the directory kid', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24));
    const keys = cache(clock);
    const before = server.reply.body;
    const other = new TestSigner();
    try {
      server.reply.body = JSON.stringify({ keys: [{ ...signer.jwk, kid: other.keyId }] });
      keys.request(url);
      await keys.settled();
      const state = keys.directory(url);
      expect(state.state).toBe('ready');
      if (state.state === 'ready') {
        expect(state.key(other.keyId)).toBeNull();
        expect(state.key(signer.keyId)).not.toBeNull();
      }
    } finally {
      server.reply.body = before;
    }
  });
});
