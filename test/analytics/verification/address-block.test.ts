import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedAddressBlock, V4_PREFIX, V6_PREFIX, type StoredAddress } from '../../../src/analytics/verification/address-block.js';
import { parseAddress, parseCidr, type ParsedAddress } from '../../../src/analytics/verification/ip-address.js';
import { buildRangeTable, tableContains, type RangeTable } from '../../../src/analytics/verification/ip-range-set.js';

/**
 * The oracle: the definition tried literally, one prefix length after another from the
 * coarsest, each candidate block checked against every table address by address range
 * (every address of the block in or out of each table), with plain arithmetic on the text.
 */
function oracle(tables: readonly RangeTable[], address: ParsedAddress): StoredAddress {
  const width = address.family === 4 ? 32 : 128;
  const prefix = address.family === 4 ? V4_PREFIX : V6_PREFIX;
  const value = BigInt(address.value);
  for (let bits = prefix.coarsest; ; bits++) {
    const size = 1n << BigInt(width - bits);
    const first = value - (value % size);
    const last = first + size - 1n;
    const fits = tables.every((table) => uniform(table, address.family, first, last));
    if (fits || bits === prefix.finest) return { block: `${render(address.family, first)}/${bits}`, exact: fits };
  }
}

/** Whether [first, last] lies wholly inside or wholly outside the table (its merged blocks). */
function uniform(table: RangeTable, family: 4 | 6, first: bigint, last: bigint): boolean {
  const firsts = family === 4 ? Array.from(table.v4First, BigInt) : table.v6First;
  const lasts = family === 4 ? Array.from(table.v4Last, BigInt) : table.v6Last;
  for (let index = 0; index < firsts.length; index++) {
    const overlaps = firsts[index]! <= last && lasts[index]! >= first;
    const covers = firsts[index]! <= first && lasts[index]! >= last;
    if (overlaps && !covers) return false;
  }
  return true;
}

function render(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => ((value >> shift) & 255n).toString()).join('.');
  return Array.from({ length: 8 }, (_, index) => ((value >> BigInt(112 - index * 16)) & 0xffffn).toString(16)).join(':');
}

const v4Cidr = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 16, max: 32 }))
  .map(([a, b, c, bits]) => `10.${a}.${b}.${c}/${bits}`);
const v6Cidr = fc
  .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 32, max: 96 }))
  .map(([a, b, c, bits]) => `2001:db8:${a}:${b.toString(16)}:${c.toString(16)}::/${bits}`);
const v4Address = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
  .map(([a, b, c]) => `10.${a}.${b}.${c}`);
const v6Address = fc
  .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 0xffff }))
  .map(([a, b, c, d]) => `2001:db8:${a}:${b.toString(16)}:${c.toString(16)}::${d.toString(16)}`);

/** Addresses near the tables' edges too: a block's first and last address, and their neighbours. */
function edgesOf(cidrs: readonly string[]): string[] {
  const edges: string[] = [];
  for (const cidr of cidrs) {
    const block = parseCidr(cidr);
    if (block === null) continue;
    for (const delta of [-1n, 0n, 1n]) {
      for (const end of [block.first, block.last]) {
        const value = BigInt(end) + delta;
        const width = block.family === 4 ? 32n : 128n;
        if (value >= 0n && value < 1n << width) edges.push(render(block.family, value));
      }
    }
  }
  return edges;
}

describe('stored address blocks (what a non-human hit keeps for re-verification)', () => {
  it('equal the literal definition for random tables and addresses, at the edges too (IPv4 and IPv6)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.oneof(v4Cidr, v6Cidr), { maxLength: 6 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.oneof(v4Address, v6Address), { minLength: 1, maxLength: 8 }),
        (lists, addresses) => {
          const tables = lists.map((cidrs) => buildRangeTable(cidrs).table);
          // The verifier's memo of built blocks (one per tables) must answer the same, every time.
          const memo = new Map<number, StoredAddress>();
          const texts = [...addresses, ...edgesOf(lists.flat())];
          for (const text of [...texts, ...texts]) {
            const address = parseAddress(text)!;
            const expected = oracle(tables, address);
            expect(storedAddressBlock(tables, address)).toEqual(expected);
            expect(storedAddressBlock(tables, address, memo)).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps a block whose verdict is the address's own, and says when no stored prefix can", () => {
    const { table } = buildRangeTable(['203.0.113.0/24', '198.51.100.16/28', '198.51.100.40/30', '2001:db8:1::/48', '2001:db8:2:0:8000::/65']);
    const cases: Array<[string, StoredAddress]> = [
      ['203.0.113.77', { block: '203.0.113.0/24', exact: true }],
      ['198.51.100.20', { block: '198.51.100.16/28', exact: true }],
      ['198.51.100.3', { block: '198.51.100.0/28', exact: true }],
      ['198.51.100.41', { block: '198.51.100.32/28', exact: false }],
      ['2001:db8:1:ffff::1', { block: '2001:db8:1:0:0:0:0:0/48', exact: true }],
      ['2001:db8:2::1', { block: '2001:db8:2:0:0:0:0:0/64', exact: false }],
      ['2001:db8:3:4::1', { block: '2001:db8:3:0:0:0:0:0/48', exact: true }],
      ['0.0.0.1', { block: '0.0.0.0/24', exact: true }],
      ['255.255.255.254', { block: '255.255.255.0/24', exact: true }],
    ];
    for (const [text, expected] of cases) {
      const address = parseAddress(text)!;
      expect(storedAddressBlock([table], address)).toEqual(expected);
      // The block's own verdict is the address's wherever it is exact.
      if (expected.exact) {
        const block = parseCidr(expected.block)!;
        const lastText = render(block.family, BigInt(block.last));
        expect(tableContains(table, parseAddress(lastText)!)).toBe(tableContains(table, address));
      }
    }
  });
});
