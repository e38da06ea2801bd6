import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Which peers may tell us the client's address in X-Forwarded-For:
 * - `false`: none, the socket's address is the client;
 * - a hop count: that many proxies in front of Docwright (the right-most entries of the
 *   header, which those proxies appended), the next one to the left is the client;
 * - addresses/CIDRs (or proxy-addr's names loopback, linklocal, uniquelocal): the header is
 *   read only from those peers, and walked right to left while entries are trusted.
 * Never "trust everyone": then the left-most entry, which the client writes itself, wins.
 */
export type TrustProxy = false | { hops: number } | { addresses: string[] };

export const MAX_PROXY_HOPS = 20;
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const OFF = new Set(['', 'false', 'no', 'off', '0']);
const EVERYONE = new Set(['true', 'yes', 'on', '*']);
const FORMAT = 'give the number of proxies in front of Docwright (e.g. 1) or their addresses/CIDRs (e.g. 10.0.0.5,10.1.0.0/16,loopback)';

/** The reason an entry of an address list is refused, or null when it is a usable address, CIDR or name. */
function entryProblem(entry: string): string | null {
  if (PROXY_NAMES.has(entry)) return null;
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return `"${entry}" is not an IP address, a CIDR or one of loopback, linklocal, uniquelocal`;
  if (slash === -1) return null;
  const prefix = entry.slice(slash + 1);
  const bits = version === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return `"${entry}" has a prefix length outside 0–${bits}`;
  // A /0 is every address: the same hole as "true", spelt differently.
  if (Number(prefix) === 0) return `"${entry}" trusts every address, so any client could choose its own address`;
  return null;
}

/** DOCWRIGHT_TRUST_PROXY: unset/false, a hop count, or a comma list of trusted proxies. */
export const trustProxySchema = z
  .string()
  .optional()
  .transform((raw, context): TrustProxy => {
    const value = (raw ?? '').trim();
    const lower = value.toLowerCase();
    if (OFF.has(lower)) return false;
    if (EVERYONE.has(lower)) {
      context.addIssue({
        code: 'custom',
        message: `trusting every peer would let any client choose its own address with X-Forwarded-For; ${FORMAT}`,
      });
      return z.NEVER;
    }
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops <= MAX_PROXY_HOPS) return { hops };
      context.addIssue({ code: 'custom', message: `at most ${MAX_PROXY_HOPS} proxy hops; ${FORMAT}` });
      return z.NEVER;
    }
    const entries = value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    const problems = entries.map(entryProblem).filter((problem): problem is string => problem !== null);
    if (problems.length > 0) {
      context.addIssue({ code: 'custom', message: `${problems.join('; ')}; ${FORMAT}` });
      return z.NEVER;
    }
    return { addresses: entries };
  });

/** What Fastify's `trustProxy` option gets for a setting. */
export function fastifyTrustProxy(setting: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (setting === false) return false;
  if ('addresses' in setting) return setting.addresses;
  // Fastify fails closed on a plain number (it trusts nothing), so the hop count is a
  // function: hop 0 is the socket's peer, hops 1…n-1 the entries our proxies appended.
  const { hops } = setting;
  return (_address, hop) => hop < hops;
}
