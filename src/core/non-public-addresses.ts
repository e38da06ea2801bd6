import { BlockList, isIP } from 'node:net';

/**
 * Addresses an outgoing request whose target a user or a request names (webhook
 * deliveries, Web Bot Auth key directories) must never reach: without this list either
 * would be a way into the operator's network (SSRF). One list, so the two cannot drift
 * apart (docs/security.md, "Outgoing requests").
 */
const REFUSED: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'], // multicast, reserved, broadcast
  // IPv4-compatible (deprecated), which includes :: and ::1; a host may still route it to
  // the embedded IPv4 address. (IPv4-mapped ::ffff:0:0/96 is judged by its IPv4 address.)
  ['::', 96, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'], // NAT64 can reach private IPv4
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 32, 'ipv6'], // Teredo: a tunnel to an embedded IPv4 address
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4: a tunnel to an embedded IPv4 address
  ['fc00::', 7, 'ipv6'], // unique local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local
  ['ff00::', 8, 'ipv6'], // multicast
];

const REFUSED_LIST = new BlockList();
for (const [network, bits, family] of REFUSED) REFUSED_LIST.addSubnet(network, bits, family);

/**
 * The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`,
 * `0:0:0:0:0:ffff:0a00:0001`: the kernel connects to 10.0.0.1 for each), else null. The
 * URL parser writes every spelling of an address one way, so one pattern reads them all.
 */
export function mappedIpv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname;
  } catch {
    return null;
  }
  const hex = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
  if (hex === null) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * True for an address no user-named request may connect to: the networks above, an
 * IPv4-mapped address whose IPv4 address is one, anything that is not an IP address, and
 * an IPv6 address with a zone (`fe80::1%eth0`: only link-local addresses have one).
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0 || address.includes('%')) return true;
  if (family === 4) return REFUSED_LIST.check(address, 'ipv4');
  const mapped = mappedIpv4(address);
  if (mapped !== null) return REFUSED_LIST.check(mapped, 'ipv4');
  return REFUSED_LIST.check(address, 'ipv6');
}
