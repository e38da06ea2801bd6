import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may go (docs/webhooks.md, "Security"). Refused unless an allowed network
 * lists them: loopback, private (RFC 1918, unique-local), link-local (cloud metadata at
 * 169.254.169.254 included), carrier-grade NAT, "this network", multicast, reserved and
 * documentation ranges, and the IPv4-mapped and NAT64 forms of all of those.
 */
const REFUSED: Array<[string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.88.99.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

export interface WebhookNetworkSettings {
  /** Plain http:// targets (https only by default). */
  allowHttp: boolean;
  /** CIDRs delivered to even though they are refused above (tests: 127.0.0.0/8). */
  allowedNetworks: readonly string[];
}

export class WebhookNetworkPolicy {
  private readonly refused = new BlockList();
  private readonly allowed = new BlockList();

  constructor(readonly settings: WebhookNetworkSettings) {
    for (const [address, prefix, family] of REFUSED) this.refused.addSubnet(address, prefix, family);
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
    return this.refused.check(address, type);
  }
}

/** `::ffff:10.0.0.1` (either spelling) is 10.0.0.1 to the kernel. */
function mappedIpv4(address: string): string | null {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
