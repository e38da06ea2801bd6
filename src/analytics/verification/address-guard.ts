import { BlockList, isIP } from 'node:net';

/**
 * Addresses a key-directory fetch must never reach: the fetch URL comes from a request
 * header anyone can write, so without this it would be a way into the operator's network
 * (SSRF). Checked on the resolved address, and the connection goes to that same address,
 * so a DNS answer cannot change between the check and the connect.
 */
const FORBIDDEN = new BlockList();
for (const [network, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  FORBIDDEN.addSubnet(network, bits, 'ipv4');
}
for (const [network, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can reach private IPv4
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10],
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(network, bits, 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether a fetch may connect to this address; loopback only when the setting allows it (tests). */
export function isPublicAddress(address: string, allowLoopback = false): boolean {
  // BlockList itself matches IPv4 rules against IPv4-mapped IPv6 addresses; the explicit
  // unwrap below keeps that independent of the Node version.
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return isPublicAddress(mapped[1]!, allowLoopback);
  if (allowLoopback && isLoopbackAddress(address)) return true;
  return !FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
