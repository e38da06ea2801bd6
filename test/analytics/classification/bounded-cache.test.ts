import { describe, expect, test } from 'vitest';
import { BoundedCache } from '../../../src/analytics/classification/bounded-cache.js';

describe('BoundedCache', () => {
  test('never holds more than its capacity and evicts the least recently used', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now newer than b
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  test('overwriting a key refreshes it without growing', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBe(10);
    expect(cache.get('b')).toBeUndefined();
  });

  test('stays bounded under a flood of distinct keys', () => {
    const cache = new BoundedCache<string, number>(100);
    for (let index = 0; index < 10_000; index++) cache.set(`key-${index}`, index);
    expect(cache.size).toBe(100);
    expect(cache.get('key-9999')).toBe(9999);
    expect(cache.get('key-0')).toBeUndefined();
  });

  test('clear empties it', () => {
    const cache = new BoundedCache<string, number>(3);
    cache.set('a', 1);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.get('a')).toBeUndefined();
  });

  test.each([0, -1, 1.5, Number.NaN])('rejects capacity %s', (capacity) => {
    expect(() => new BoundedCache(capacity)).toThrow(RangeError);
  });
});
