import { isIPv4, isIPv6 } from 'node:net';

/** An address as numbers: IPv4 as an unsigned 32-bit number, IPv6 as a 128-bit bigint. */
export type ParsedAddress = { family: 4; value: number } | { family: 6; value: bigint };

export function parseIPv4(text: string): number | null {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 46 /* . */) {
      if (digits === 0 || ++dots > 3) return null;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else if (code >= 48 && code <= 57 && digits < 3) {
      octet = octet * 10 + (code - 48);
      if (octet > 255) return null;
      digits++;
    } else {
      return null;
    }
  }
  if (digits === 0 || dots !== 3) return null;
  return value * 256 + octet;
}

export function parseIPv6(text: string): bigint | null {
  if (!isIPv6(text)) return null;
  // isIPv6 has checked the syntax, so one pass collects the 16-bit groups and where "::"
  // sits (a range lookup per IPv6 agent hit: no split, no array copies, four BigInts).
  const groups: number[] = [];
  let gap = -1;
  let group = 0;
  let digits = 0;
  const zone = text.indexOf('%');
  const end = zone === -1 ? text.length : zone;
  for (let index = 0; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code === 58 /* : */) {
      if (digits > 0) groups.push(group);
      group = 0;
      digits = 0;
      if (text.charCodeAt(index + 1) === 58) {
        gap = groups.length;
        index++;
      }
    } else if (code === 46 /* . */) {
      // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
      const v4 = parseIPv4(text.slice(text.lastIndexOf(':', index) + 1, end));
      if (v4 === null) return null;
      groups.push(v4 >>> 16, v4 & 0xffff);
      digits = 0;
      break;
    } else {
      group = group * 16 + (code <= 57 ? code - 48 : (code | 0x20) - 87);
      digits++;
    }
  }
  if (digits > 0) groups.push(group);
  const missing = 8 - groups.length;
  if (gap === -1 ? missing !== 0 : missing < 0) return null;
  let value = 0n;
  for (let position = 0; position < 8; position += 2)
    value = (value << 32n) | BigInt(groupAt(groups, gap, missing, position) * 65_536 + groupAt(groups, gap, missing, position + 1));
  return value;
}

/** The group at `position` of the full address: "::" stands for `missing` zero groups from `gap` on. */
function groupAt(groups: readonly number[], gap: number, missing: number, position: number): number {
  if (gap === -1 || position < gap) return groups[position]!;
  return position < gap + missing ? 0 : groups[position - missing]!;
}

const V4_MAPPED_PREFIX = 0xffffn << 32n;

/** Parses an address; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) counts as the IPv4 address. */
export function parseAddress(text: string): ParsedAddress | null {
  if (isIPv4(text)) {
    const value = parseIPv4(text);
    return value === null ? null : { family: 4, value };
  }
  const value = parseIPv6(text);
  if (value === null) return null;
  if (value >> 32n === V4_MAPPED_PREFIX >> 32n) return { family: 4, value: Number(value & 0xffffffffn) };
  return { family: 6, value };
}

/** A CIDR block as its first and last address, or null when it is not one. */
export function parseCidr(text: string): { family: 4; first: number; last: number } | { family: 6; first: bigint; last: bigint } | null {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const bitsText = slash === -1 ? null : text.slice(slash + 1);
  if (bitsText !== null && !/^\d{1,3}$/.test(bitsText)) return null;
  const v4 = parseIPv4(address);
  if (v4 !== null) {
    const bits = bitsText === null ? 32 : Number(bitsText);
    if (bits > 32) return null;
    const size = 2 ** (32 - bits);
    const first = v4 - (v4 % size);
    return { family: 4, first, last: first + size - 1 };
  }
  const v6 = parseIPv6(address);
  if (v6 === null) return null;
  const bits = bitsText === null ? 128 : Number(bitsText);
  if (bits > 128) return null;
  const hostMask = (1n << BigInt(128 - bits)) - 1n;
  const first = v6 & ~hostMask & ((1n << 128n) - 1n);
  return { family: 6, first, last: first | hostMask };
}
