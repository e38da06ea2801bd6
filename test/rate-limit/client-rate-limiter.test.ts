import { describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { ClientRateLimiter, clientKey } from '../../src/rate-limit/client-rate-limiter.js';

describe('client keys of the page rate limit', () => {
  test('IPv4 addresses stand alone; an IPv6 host is its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
  });
});

describe('ClientRateLimiter', () => {
  test('counts per client in fixed windows and forgets the least recent client when full', () => {
    const clock = new ManualClock(1_000_000);
    const limiter = new ClientRateLimiter(clock, { limit: 2, windowMs: 10_000, maxClients: 2 });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 10]);
    expect(limiter.take('2001:db8::1')).toBe(0);
    expect(limiter.take('2001:db8::2')).toBe(0);
    expect(limiter.take('2001:db8::3')).toBe(10);
    clock.advance(9_001);
    expect(limiter.take('a')).toBe(1);
    clock.advance(999);
    expect(limiter.take('a')).toBe(0);
    // A third client evicts the least recently used one ('2001:db8::/64'), whose count restarts.
    limiter.take('b');
    expect(limiter.take('2001:db8::4')).toBe(0);
  });
});
