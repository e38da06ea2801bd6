import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { canonicalPathEncoding } from '../../../src/analytics/path-encoding.js';
import { normalisePath } from '../../../src/analytics/event-validation.js';
import { normalizePath } from '../../../src/analytics/import/normalize-path.js';

describe('one spelling of a path, whichever way it arrives', () => {
  test.each([
    ['/docs/getting%20started', '/docs/getting%20started'],
    ['/docs/a%09b', '/docs/a%09b'],
    ['/caf%C3%A9', '/café'],
    ['/caf%c3%a9', '/café'],
    ['/café', '/café'],
    ['/%7Euser/%41', '/~user/A'],
    ['/a%2fb%3f%23%25', '/a%2Fb%3F%23%25'],
    ['/nbsp%C2%A0here', '/nbsp%C2%A0here'],
    ['/nbsp\u00a0raw', '/nbsp%C2%A0raw'],
    ['/zero%E2%80%8Bwidth', '/zero%E2%80%8Bwidth'],
    ['/bad%C3', '/bad%C3'],
    ['/100%', '/100%'],
  ])('canonicalPathEncoding(%s) = %s', (sent, canonical) => {
    expect(canonicalPathEncoding(sent)).toBe(canonical);
  });

  test('the server and the importer agree: beacon (encoded), API (raw) and log lines give one key', () => {
    const beacon = normalisePath('/docs/caf%C3%A9/getting%20started');
    const api = normalisePath('/docs/café/getting%20started');
    const logged = normalizePath('/docs/caf%c3%a9/getting%20started?x=1');
    expect(beacon).toBe('/docs/café/getting%20started');
    expect(api).toBe(beacon);
    expect(logged).toBe(beacon);
  });

  test('whatever the importer sends, the server accepts unchanged (raw spaces in a log target included)', () => {
    expect(normalizePath('/docs/getting started')).toBe('/docs/getting%20started');
    const alphabet = fc.constantFrom('/', 'a', '%', '2', '0', 'C', '3', 'A', '9', 'é', ' ', '\t', '\u00a0', '\u200b', '.', '?', '#', 'f');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (characters) => {
        const path = normalizePath(`/${characters.join('')}`);
        if (path === undefined) return;
        expect(normalisePath(path)).toBe(path);
        expect(canonicalPathEncoding(path)).toBe(path);
      }),
    );
  });

  test('canonicalizing is idempotent for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const once = canonicalPathEncoding(`/${text}`);
        expect(canonicalPathEncoding(once)).toBe(once);
      }),
    );
  });

  test('the server still refuses raw whitespace, and says how to send it', () => {
    expect(normalisePath('/a b')).toEqual({ message: expect.stringContaining('%20') });
  });

  test('the importer does not cut a path inside an escape', () => {
    const path = normalizePath(`/${'a'.repeat(1021)}%20b`);
    expect(path).toBe(`/${'a'.repeat(1021)}`);
  });
});
