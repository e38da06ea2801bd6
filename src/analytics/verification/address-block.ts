import { parseCidr, type ParsedAddress } from './ip-address.js';
import { lastAtOrBefore, type RangeTable } from './ip-range-set.js';

/**
 * What a non-human hit keeps of its address so a later change of the published ranges can
 * re-decide it (docs/classification.md, "Re-verification when the ranges change"): never
 * the address, but the aligned block around it that no range list cuts, at least /24
 * (IPv4) or /48 (IPv6) wide and at most /28 or /64 fine.
 */
export interface StoredAddress {
  /** CIDR text, e.g. "203.0.113.0/24". */
  block: string;
  /** False when a list cuts the block even at the finest stored prefix: its verdict cannot be recomputed. */
  exact: boolean;
}

/** The coarsest and the finest prefix lengths stored, per family. */
export const V4_PREFIX: { readonly coarsest: number; readonly finest: number } = { coarsest: 24, finest: 28 };
export const V6_PREFIX: { readonly coarsest: number; readonly finest: number } = { coarsest: 48, finest: 64 };

const V4_MAX = 0xffffffff;
const V6_MAX = (1n << 128n) - 1n;

/**
 * The block to store for `address`: the widest aligned block (between the two prefix
 * lengths) that lies wholly inside or wholly outside every table, so its verdict under
 * these tables is the address's own.
 */
export function storedAddressBlock(tables: readonly RangeTable[], address: ParsedAddress): StoredAddress {
  if (address.family === 4) {
    let low = 0;
    let high = V4_MAX;
    for (const table of tables) {
      const index = lastAtOrBefore(table.v4First, address.value);
      if (index >= 0 && address.value <= table.v4Last[index]!) {
        low = Math.max(low, table.v4First[index]!);
        high = Math.min(high, table.v4Last[index]!);
      } else {
        low = Math.max(low, index >= 0 ? table.v4Last[index]! + 1 : 0);
        high = Math.min(high, index + 1 < table.v4First.length ? table.v4First[index + 1]! - 1 : V4_MAX);
      }
    }
    for (let bits = V4_PREFIX.coarsest; ; bits++) {
      const size = 2 ** (32 - bits);
      const first = address.value - (address.value % size);
      const fits = first >= low && first + size - 1 <= high;
      if (fits || bits === V4_PREFIX.finest) return { block: `${formatV4(first)}/${bits}`, exact: fits };
    }
  }
  let low = 0n;
  let high = V6_MAX;
  for (const table of tables) {
    const index = lastAtOrBefore(table.v6First, address.value);
    if (index >= 0 && address.value <= table.v6Last[index]!) {
      if (table.v6First[index]! > low) low = table.v6First[index]!;
      if (table.v6Last[index]! < high) high = table.v6Last[index]!;
    } else {
      const gapLow = index >= 0 ? table.v6Last[index]! + 1n : 0n;
      const gapHigh = index + 1 < table.v6First.length ? table.v6First[index + 1]! - 1n : V6_MAX;
      if (gapLow > low) low = gapLow;
      if (gapHigh < high) high = gapHigh;
    }
  }
  for (let bits = V6_PREFIX.coarsest; ; bits++) {
    const hostMask = (1n << BigInt(128 - bits)) - 1n;
    const first = address.value & ~hostMask & V6_MAX;
    const fits = first >= low && (first | hostMask) <= high;
    if (fits || bits === V6_PREFIX.finest) return { block: `${formatV6(first)}/${bits}`, exact: fits };
  }
}

/** Where a stored block lies against one table. */
export type BlockState = 'inside' | 'outside' | 'partial';

export function blockState(table: RangeTable, block: string): BlockState {
  const parsed = parseCidr(block);
  if (parsed === null) return 'partial';
  const [firsts, lasts] = parsed.family === 4 ? [table.v4First, table.v4Last] : [table.v6First, table.v6Last];
  const index = lastAtOrBefore<number | bigint>(firsts, parsed.first);
  if (index >= 0 && lasts[index]! >= parsed.last) return 'inside';
  const touchesBefore = index >= 0 && lasts[index]! >= parsed.first;
  const touchesAfter = index + 1 < firsts.length && firsts[index + 1]! <= parsed.last;
  return touchesBefore || touchesAfter ? 'partial' : 'outside';
}

function formatV4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

function formatV6(value: bigint): string {
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}
