import { isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAddress, parseIPv6 } from '../../../src/analytics/verification/ip-address.js';

/** The eight 16-bit groups of a 128-bit value. */
function groupsOf(value: bigint): number[] {
  return Array.from({ length: 8 }, (_, index) => Number((value >> BigInt(112 - index * 16)) & 0xffffn));
}

/** Renders groups as text: `::` over the zero run starting at `gapAt` (if any), optional upper case, leading zeros, dotted tail. */
function render(groups: number[], options: { gapAt: number | null; upper: boolean; padded: boolean; dottedTail: boolean; zone: boolean }): string {
  const hex = (group: number): string => {
    const text = group.toString(16).padStart(options.padded ? 4 : 1, '0');
    return options.upper ? text.toUpperCase() : text;
  };
  const tail = options.dottedTail ? [`${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`] : null;
  const heads = tail === null ? groups.map(hex) : groups.slice(0, 6).map(hex);
  const parts = tail === null ? heads : [...heads, ...tail];
  let text = parts.join(':');
  if (options.gapAt !== null) {
    let end = options.gapAt;
    const limit = tail === null ? 8 : 6;
    while (end < limit && groups[end] === 0) end++;
    if (end > options.gapAt) text = `${parts.slice(0, options.gapAt).join(':')}::${parts.slice(end).join(':')}`;
  }
  return options.zone ? `${text}%eth0` : text;
}

describe('IPv6 address parsing (one pass after the syntax check)', () => {
  it('reads every textual form of an address as the same 128-bit value', () => {
    // Values with runs of zero groups, so "::" lands at many places.
    const group = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(
        fc.array(group, { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 0, max: 7 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (groups, gapAt, compress, upper, padded, dottedTail, zone) => {
          const value = groups.reduce((sum, item) => (sum << 16n) | BigInt(item), 0n);
          const text = render(groups, { gapAt: compress && groups[gapAt] === 0 ? gapAt : null, upper, padded, dottedTail, zone });
          expect(isIPv6(text), text).toBe(true);
          expect(parseIPv6(text), text).toBe(value);
          expect(groupsOf(parseIPv6(text)!)).toEqual(groups);
          // The URL parser's canonical form (RFC 5952) is the same address too.
          if (!zone) expect(parseIPv6(new URL(`http://[${text}]/`).hostname.slice(1, -1))).toBe(value);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('handles the edge forms and refuses what is not an address', () => {
    expect(parseIPv6('::')).toBe(0n);
    expect(parseIPv6('::1')).toBe(1n);
    expect(parseIPv6('1::')).toBe(1n << 112n);
    expect(parseIPv6('1:2:3:4:5:6:7::')).toBe(0x0001_0002_0003_0004_0005_0006_0007_0000n);
    expect(parseIPv6('::ffff:192.0.2.1')).toBe(0xffff_c000_0201n);
    expect(parseAddress('::ffff:192.0.2.1')).toEqual({ family: 4, value: 0xc0000201 });
    expect(parseAddress('2a0a:b1c0:1::1f')).toEqual({ family: 6, value: 0x2a0a_b1c0_0001_0000_0000_0000_0000_001fn });
    for (const text of ['', ':', ':1', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1::2::3', '12345::', 'g::', '::1.2.3', '::256.1.1.1', '1.2.3.4', 'fe80::1%'])
      expect(parseIPv6(text), text).toBeNull();
  });
});
