import { BlockList, isIP } from 'node:net';
import { isNonPublicAddress, mappedIpv4 } from '../core/non-public-addresses.js';

/**
 * Where webhooks may go (docs/webhooks.md, "Security"): nowhere the shared list of
 * non-public networks names (src/core/non-public-addresses.ts: loopback, private,
 * link-local with cloud metadata, CGNAT, multicast, reserved and documentation ranges,
 * NAT64, 6to4, Teredo, IPv4-compatible, and the IPv4-mapped forms of the IPv4 ones),
 * unless an allowed network lists the address.
 */
export interface WebhookNetworkSettings {
  /** Plain http:// targets (https only by default). */
  allowHttp: boolean;
  /** CIDRs delivered to even though that list refuses them (tests: 127.0.0.0/8). */
  allowedNetworks: readonly string[];
}

export class WebhookNetworkPolicy {
  private readonly allowed = new BlockList();

  constructor(readonly settings: WebhookNetworkSettings) {
    for (const network of settings.allowedNetworks) {
      const [address = '', prefix] = network.split('/');
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      this.allowed.addSubnet(address, Number(prefix ?? (family === 'ipv6' ? 128 : 32)), family);
    }
  }

  /** Why a URL cannot be a webhook target, or null. An IP literal is checked here; a name when it is resolved. */
  refuseUrl(url: URL): string | null {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.settings.allowHttp)) {
      return this.settings.allowHttp ? 'must be an http:// or https:// URL' : 'must be an https:// URL';
    }
    if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && this.refusesAddress(host)) return `points at ${host}, a private, loopback or link-local address`;
    return null;
  }

  /** True for an address no webhook may connect to. */
  refusesAddress(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return true;
    const type = family === 6 ? 'ipv6' : 'ipv4';
    const mapped = type === 'ipv6' ? mappedIpv4(address) : null;
    if (mapped !== null) return this.refusesAddress(mapped);
    if (this.allowed.check(address, type)) return false;
    return isNonPublicAddress(address);
  }
}
