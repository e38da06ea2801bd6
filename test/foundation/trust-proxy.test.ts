import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'docwright-proxy-'));
const trustProxy = (value: string | undefined) =>
  loadConfig({ DOCWRIGHT_DATA_DIR: dataDir(), ...(value === undefined ? {} : { DOCWRIGHT_TRUST_PROXY: value }) }).trustProxy;

function configError(value: string): string {
  try {
    trustProxy(value);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`DOCWRIGHT_TRUST_PROXY=${value} was accepted`);
}

describe('DOCWRIGHT_TRUST_PROXY', () => {
  test('unset, empty, false or 0 trust no proxy; a number is a hop count; a list is addresses', () => {
    for (const value of [undefined, '', 'false', 'no', '0']) expect(trustProxy(value), String(value)).toBe(false);
    expect(trustProxy('1')).toEqual({ hops: 1 });
    expect(trustProxy(' 2 ')).toEqual({ hops: 2 });
    expect(trustProxy('10.0.0.5, 10.1.0.0/16,::1,fd00::/8,loopback')).toEqual({ addresses: ['10.0.0.5', '10.1.0.0/16', '::1', 'fd00::/8', 'loopback'] });
  });

  test('"true" (trust everyone) stops start-up, naming the variable and the new format', () => {
    for (const value of ['true', 'TRUE', 'yes', '*']) {
      const message = configError(value);
      expect(message).toContain('DOCWRIGHT_TRUST_PROXY');
      expect(message).toContain('X-Forwarded-For');
      expect(message).toMatch(/number of proxies/);
      expect(message).toContain(`"${value}"`);
    }
  });

  test('bad addresses, prefixes and /0 are refused', () => {
    expect(configError('10.0.0.5,proxy.internal')).toContain('"proxy.internal" is not an IP address');
    expect(configError('10.0.0.0/33')).toContain('prefix length');
    expect(configError('0.0.0.0/0')).toContain('trusts every address');
    expect(configError('::/0')).toContain('trusts every address');
    expect(configError('21')).toContain('at most 20');
  });
});

describe('the client address behind proxies', () => {
  let t: TestApp | undefined;
  afterEach(async () => t?.close());

  async function clientAddress(environment: Record<string, string>, remoteAddress: string, forwardedFor?: string): Promise<string> {
    await t?.close();
    t = await createTestApp('sqlite', environment);
    t.app.get('/test/client-address', { config: { access: 'public' } }, async (request) => ({ ip: request.ip }));
    const response = await t.app.inject({
      method: 'GET',
      url: '/test/client-address',
      remoteAddress,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    });
    expect(response.statusCode).toBe(200);
    return response.json<{ ip: string }>().ip;
  }

  test('by default X-Forwarded-For is ignored', async () => {
    expect(await clientAddress({}, '203.0.113.7', '1.2.3.4')).toBe('203.0.113.7');
  });

  test('with one hop, the entry our proxy appended is the client, not what the client wrote', async () => {
    // The client sent "X-Forwarded-For: 1.2.3.4"; our one proxy appended the address it saw.
    expect(await clientAddress({ DOCWRIGHT_TRUST_PROXY: '1' }, '10.0.0.2', '1.2.3.4, 5.6.7.8')).toBe('5.6.7.8');
    expect(await clientAddress({ DOCWRIGHT_TRUST_PROXY: '2' }, '10.0.0.2', '1.2.3.4, 5.6.7.8, 10.0.0.9')).toBe('5.6.7.8');
  });

  test('with an address list, only listed peers are believed', async () => {
    const environment = { DOCWRIGHT_TRUST_PROXY: '10.0.0.0/8,192.0.2.1' };
    expect(await clientAddress(environment, '203.0.113.7', '1.2.3.4')).toBe('203.0.113.7');
    expect(await clientAddress(environment, '10.0.0.2', '1.2.3.4, 5.6.7.8')).toBe('5.6.7.8');
    expect(await clientAddress(environment, '10.0.0.2', '1.2.3.4, 5.6.7.8, 192.0.2.1')).toBe('5.6.7.8');
    expect(await clientAddress(environment, '::ffff:10.0.0.2', '5.6.7.8')).toBe('5.6.7.8');
  });
});
