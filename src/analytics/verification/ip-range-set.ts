import { parseAddress, parseCidr, type ParsedAddress } from './ip-address.js';

/**
 * The CIDR blocks of one published range list, merged and sorted so a lookup is a binary
 * search: O(log n) per hit, no allocation for IPv4 (the verification bench, bench/verification-suite.ts, measures it).
 * Plain data (typed arrays and bigint arrays), so it can be posted to an ingest worker.
 */
export interface RangeTable {
  v4First: Uint32Array;
  v4Last: Uint32Array;
  v6First: bigint[];
  v6Last: bigint[];
}

export function buildRangeTable(cidrs: readonly string[]): { table: RangeTable; invalid: string[] } {
  const v4: Array<[number, number]> = [];
  const v6: Array<[bigint, bigint]> = [];
  const invalid: string[] = [];
  for (const cidr of cidrs) {
    const block = parseCidr(cidr.trim());
    if (block === null) invalid.push(cidr);
    else if (block.family === 4) v4.push([block.first, block.last]);
    else v6.push([block.first, block.last]);
  }
  const mergedV4 = merge(
    v4,
    (a, b) => a - b,
    (last) => last + 1,
  );
  const mergedV6 = merge(
    v6,
    (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    (last) => last + 1n,
  );
  return {
    table: {
      v4First: Uint32Array.from(mergedV4.map(([first]) => first)),
      v4Last: Uint32Array.from(mergedV4.map(([, last]) => last)),
      v6First: mergedV6.map(([first]) => first),
      v6Last: mergedV6.map(([, last]) => last),
    },
    invalid,
  };
}

function merge<T>(blocks: Array<[T, T]>, compare: (a: T, b: T) => number, next: (last: T) => T): Array<[T, T]> {
  blocks.sort((a, b) => compare(a[0], b[0]));
  const merged: Array<[T, T]> = [];
  for (const block of blocks) {
    const previous = merged.at(-1);
    if (previous !== undefined && compare(block[0], next(previous[1])) <= 0) {
      if (compare(block[1], previous[1]) > 0) previous[1] = block[1];
    } else {
      merged.push([block[0], block[1]]);
    }
  }
  return merged;
}

/** Whether a parsed address lies in the table. */
export function tableContains(table: RangeTable, address: ParsedAddress): boolean {
  if (address.family === 4) return search(table.v4First, table.v4Last, address.value);
  return search(table.v6First, table.v6Last, address.value);
}

function search<T extends number | bigint>(firsts: ArrayLike<T>, lasts: ArrayLike<T>, value: T): boolean {
  // The last block starting at or before the value is the only one that can hold it.
  const index = lastAtOrBefore(firsts, value);
  return index >= 0 && value <= lasts[index]!;
}

/** The index of the last block starting at or before `value` (blocks sorted by start), or -1. */
export function lastAtOrBefore<T extends number | bigint>(firsts: ArrayLike<T>, value: T): number {
  let low = 0;
  let high = firsts.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (firsts[middle]! <= value) low = middle + 1;
    else high = middle - 1;
  }
  return high;
}

export function rangeTableSize(table: RangeTable): number {
  return table.v4First.length + table.v6First.length;
}

export { parseAddress };
