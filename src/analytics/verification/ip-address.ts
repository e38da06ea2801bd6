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
  let body = text;
  const zone = body.indexOf('%');
  if (zone !== -1) body = body.slice(0, zone);
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = body.split('::');
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const rest = halves.length > 1 && halves[1] !== '' ? halves[1]!.split(':') : [];
  const groups = halves.length > 1 ? [...head, ...(new Array(8 - head.length - rest.length).fill('0') as string[]), ...rest] : head;
  if (groups.length !== 8) return null;
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(parseInt(group, 16));
  return value;
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
