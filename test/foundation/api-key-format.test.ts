import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { generateApiKey, hashApiKey, keyHint, parseApiKey } from '../../src/keys/api-key-format.js';

describe('API key format', () => {
  test('dw_admin_ + 30 random + 6 checksum characters, all base62', () => {
    const key = generateApiKey('admin');
    expect(key).toMatch(/^dw_admin_[0-9A-Za-z]{36}$/);
    expect(generateApiKey('ingest')).toMatch(/^dw_ingest_[0-9A-Za-z]{36}$/);
    expect(parseApiKey(key)).toEqual({ scope: 'admin' });
  });

  test('keys are unique', () => {
    const keys = new Set(Array.from({ length: 2_000 }, () => generateApiKey('admin')));
    expect(keys.size).toBe(2_000);
  });

  test('any single-character change breaks the checksum', () => {
    const key = generateApiKey('admin');
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    fc.assert(
      fc.property(fc.integer({ min: 9, max: key.length - 1 }), fc.constantFrom(...Array.from(alphabet)), (position, character) => {
        fc.pre(key[position] !== character);
        const mutated = key.slice(0, position) + character + key.slice(position + 1);
        expect(parseApiKey(mutated)).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  test('malformed keys are rejected', () => {
    for (const bad of ['', 'dw_admin_', 'Bearer x', generateApiKey('admin') + 'x', 'dw_root_' + 'a'.repeat(36)]) {
      expect(parseApiKey(bad)).toBeNull();
    }
  });

  test('hash and hint never contain the secret part', () => {
    const key = generateApiKey('admin');
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyHint(key)).toBe(`dw_admin_…${key.slice(-4)}`);
    expect(keyHint(key)).not.toContain(key.slice(9, 39));
  });
});
