import { BlockList, isIP } from 'node:net';
import { isNonPublicAddress, mappedIpv4 } from '../../core/non-public-addresses.js';

/**
 * Addresses a key-directory fetch may reach: the fetch URL comes from a request header
 * anyone can write, so the shared list of non-public networks (src/core/non-public-addresses.ts,
 * the same one webhooks use) keeps it out of the operator's network (SSRF). Checked on the
 * resolved address, and the connection goes to that same address, so a DNS answer cannot
 * change between the check and the connect.
 */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether a fetch may connect to this address; loopback only when the setting allows it (tests). */
export function isPublicAddress(address: string, allowLoopback = false): boolean {
  const mapped = mappedIpv4(address);
  if (mapped !== null) return isPublicAddress(mapped, allowLoopback);
  if (allowLoopback && isLoopbackAddress(address)) return true;
  return !isNonPublicAddress(address);
}
