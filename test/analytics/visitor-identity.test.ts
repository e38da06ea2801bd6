import { createHmac, hkdfSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { normaliseAddress, VisitorIdentity } from '../../src/analytics/visitor-identity.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';

/** The definition, written the obvious way: HMAC-SHA256 with the HKDF-derived project key, first 63 bits. */
function reference(projectId: string, data: string): bigint {
  const key = Buffer.from(hkdfSync('sha256', SECRET, 'docwright/analytics/visitor', projectId, 32));
  return createHmac('sha256', key).update(data).digest().readBigUInt64BE(0) >> 1n;
}

describe('VisitorIdentity', () => {
  const identity = new VisitorIdentity(SECRET);

  test('is HMAC-SHA256 of "ip\\nuserAgent" (and "\\nday" when rotating), truncated to 63 bits', () => {
    fc.assert(
      fc.property(
        fc.ipV4(),
        fc.string({ maxLength: 1200, unit: 'grapheme' }),
        fc.option(fc.integer({ min: 0, max: 40_000 }), { nil: null }),
        (ip, userAgent, day) => {
          const expected = reference('project-1', day === null ? `${ip}\n${userAgent}` : `${ip}\n${userAgent}\n${day}`);
          const actual = identity.fromAddress('project-1', ip, userAgent, day);
          expect(actual).toBe(expected);
          expect(actual >= 0n && actual < 2n ** 63n).toBe(true);
        },
      ),
    );
  });

  test('long inputs take the plain path and still agree', () => {
    const userAgent = '€'.repeat(5000);
    expect(identity.fromAddress('p', '10.0.0.1', userAgent, null)).toBe(reference('p', `10.0.0.1\n${userAgent}`));
  });

  test('differs per project, per address, per agent; supplied ids live apart from addresses', () => {
    const base = identity.fromAddress('p1', '10.0.0.1', 'ua', null);
    expect(identity.fromAddress('p2', '10.0.0.1', 'ua', null)).not.toBe(base);
    expect(identity.fromAddress('p1', '10.0.0.2', 'ua', null)).not.toBe(base);
    expect(identity.fromAddress('p1', '10.0.0.1', 'ub', null)).not.toBe(base);
    expect(identity.fromVisitorId('p1', '10.0.0.1\nua')).not.toBe(base);
    expect(identity.fromVisitorId('p1', 'reader')).toBe(reference('p1', '\u0000id\nreader'));
  });

  test('IPv4-mapped IPv6 and letter case do not make a new visitor', () => {
    expect(normaliseAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseAddress('2001:DB8::1')).toBe('2001:db8::1');
    expect(identity.fromAddress('p', '::FFFF:192.0.2.1', 'ua', 3)).toBe(identity.fromAddress('p', '192.0.2.1', 'ua', 3));
  });
});
