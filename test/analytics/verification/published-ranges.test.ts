import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { applyVerification } from '../../../src/analytics/verification/apply-verification.js';
import { EvidenceVerifier } from '../../../src/analytics/verification/evidence-verifier.js';
import { ForwardConfirmedDns, SUSPECT_AFTER, type DnsResolver } from '../../../src/analytics/verification/forward-confirmed-dns.js';
import { parseAddress } from '../../../src/analytics/verification/ip-address.js';
import { buildRangeTable, tableContains } from '../../../src/analytics/verification/ip-range-set.js';
import { buildRangeCatalog, shippedRangeFile, type RangeFile } from '../../../src/analytics/verification/range-catalog.js';
import { snapshotKeyLookup } from '../../../src/analytics/verification/key-directory-cache.js';
import { VerificationService } from '../../../src/analytics/verification/verification-service.js';
import type { VerifierSnapshot } from '../../../src/analytics/verification/verifier-snapshot.js';
import type { VerificationInput } from '../../../src/analytics/verification/hit-verifier.js';
import { FIXTURE_RANGES } from '../../fixtures/agent-ranges.js';

/** A DNS with a handful of records: the real Googlebot address, and a forger whose PTR lies. */
const fakeDns: DnsResolver = {
  reverse: (ip) => {
    const names: Record<string, string[]> = {
      '66.249.66.1': ['crawl-66-249-66-1.googlebot.com'],
      '198.51.100.7': ['crawl-198-51-100-7.googlebot.com'],
      '198.51.100.8': ['host.forger.example'],
    };
    const found = names[ip];
    return found === undefined ? Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })) : Promise.resolve(found);
  },
  forward: (host) =>
    Promise.resolve(host === 'crawl-66-249-66-1.googlebot.com' ? ['66.249.66.1'] : host === 'crawl-198-51-100-7.googlebot.com' ? ['66.249.70.70'] : []),
};

function setup(file: RangeFile = FIXTURE_RANGES): {
  verify: (input: Partial<VerificationInput>) => string;
  dns: ForwardConfirmedDns;
  verifier: EvidenceVerifier;
} {
  const clock = new ManualClock(Date.UTC(2026, 10, 24));
  const dns = new ForwardConfirmedDns({ clock, resolver: fakeDns });
  const verifier = new EvidenceVerifier({
    ranges: buildRangeCatalog(file),
    keys: snapshotKeyLookup([]),
    rdnsVerdict: (ip) => dns.verdict(ip),
    nonces: null,
    clock,
  });
  return { verify: (input) => verifier.verify({ category: 'ai-training', agent: 'GPTBot', operator: 'OpenAI', ip: null, ...input }), dns, verifier };
}

describe('range lookup', () => {
  it('finds IPv4, IPv6 and IPv4-mapped addresses at the block edges, and nothing outside', () => {
    const { table, invalid } = buildRangeTable([
      '10.0.0.0/24',
      '10.0.1.0/24',
      '192.0.2.128/25',
      '2001:db8::/32',
      '2001:db8:ffff::/48',
      'nonsense',
      '1.2.3.4/33',
    ]);
    expect(invalid).toEqual(['nonsense', '1.2.3.4/33']);
    expect(table.v4First).toHaveLength(2); // the two adjacent /24s merge
    const inside = (ip: string): boolean => tableContains(table, parseAddress(ip)!);
    expect(
      ['10.0.0.0', '10.0.1.255', '192.0.2.128', '192.0.2.255', '::ffff:10.0.0.7', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'].map(inside),
    ).toEqual(Array(7).fill(true));
    expect(['9.255.255.255', '10.0.2.0', '192.0.2.127', '2001:db9::', '2001:db7:ffff::1', '::1'].map(inside)).toEqual(Array(6).fill(false));
  });

  it('ships a valid range file with a source URL for every list', () => {
    const file = shippedRangeFile();
    expect(file.sets.length).toBeGreaterThanOrEqual(10);
    for (const set of file.sets) expect(set.url).toMatch(/^https:\/\//);
    // Shipped lists are partial: they can verify but never call a hit spoofed.
    expect(buildRangeCatalog(file).sets.every((set) => !set.complete)).toBe(true);
  });
});

describe('range and reverse DNS verification', () => {
  it('verifies GPTBot from its published range and calls a forged GPTBot from outside spoofed', () => {
    const { verify } = setup();
    expect(verify({ ip: '20.171.206.33' })).toBe('verified');
    expect(verify({ ip: '2a0a:b1c0:1::5' })).toBe('verified');
    expect(verify({ ip: '203.0.113.50' })).toBe('spoofed');
    expect(verify({ ip: null })).toBe('claimed');
  });

  it('keeps agents of unfetched lists, or of operators without ranges, claimed', () => {
    const { verify } = setup();
    expect(verify({ agent: 'PerplexityBot', operator: 'Perplexity', ip: '203.0.113.50' })).toBe('claimed');
    expect(verify({ agent: 'ClaudeBot', operator: 'Anthropic', ip: '203.0.113.50' })).toBe('claimed');
    expect(verify({ category: 'human', agent: null, operator: null, ip: '203.0.113.50' })).toBe('none');
  });

  it('checks a Googlebot outside its ranges by forward-confirmed reverse DNS, off the ingest path', async () => {
    const { verify, dns, verifier } = setup();
    const googlebot = (ip: string): string => verify({ category: 'bot', agent: 'Googlebot', operator: null, ip });
    expect(googlebot('66.249.64.10')).toBe('verified');
    expect(googlebot('66.249.66.1')).toBe('claimed'); // not checked yet: asked for
    expect(googlebot('198.51.100.7')).toBe('claimed');
    expect(googlebot('198.51.100.8')).toBe('claimed');
    expect(googlebot('203.0.113.9')).toBe('claimed');
    const wants = verifier.takeWants()!;
    expect(wants.lookups.map((lookup) => lookup.ip)).toEqual(['66.249.66.1', '198.51.100.7', '198.51.100.8', '203.0.113.9']);
    for (const lookup of wants.lookups) dns.request(lookup.ip, lookup.suffixes);
    await dns.settled();
    expect(googlebot('66.249.66.1')).toBe('verified');
    expect(googlebot('198.51.100.7')).toBe('spoofed'); // the PTR name does not lead back
    expect(googlebot('198.51.100.8')).toBe('spoofed'); // not Google's name
    expect(googlebot('203.0.113.9')).toBe('spoofed'); // no PTR record
  });

  it('warns once when reverse DNS finds no name for 100 addresses in a row, and again only after a name came back', async () => {
    const clock = new ManualClock();
    const named = new Set<string>();
    const warnings: number[] = [];
    const dns = new ForwardConfirmedDns({
      clock,
      resolver: {
        reverse: (ip) => (named.has(ip) ? Promise.resolve(['host.example']) : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }))),
        forward: () => Promise.resolve([]),
      },
      onSuspectResolver: (count) => warnings.push(count),
    });
    const check = async (from: number, count: number): Promise<void> => {
      for (let index = from; index < from + count; index++) dns.request(`198.51.${Math.floor(index / 256)}.${index % 256}`, ['googlebot.com']);
      await dns.settled();
    };
    await check(0, SUSPECT_AFTER - 1);
    expect(warnings).toEqual([]);
    await check(SUSPECT_AFTER - 1, 1);
    expect(warnings).toEqual([SUSPECT_AFTER]);
    await check(SUSPECT_AFTER, 2 * SUSPECT_AFTER);
    expect(warnings).toEqual([SUSPECT_AFTER]);
    // A name comes back: the count starts again.
    named.add('198.51.200.1');
    dns.request('198.51.200.1', ['googlebot.com']);
    await dns.settled();
    await check(3 * SUSPECT_AFTER, SUSPECT_AFTER - 1);
    expect(warnings).toEqual([SUSPECT_AFTER]);
    await check(4 * SUSPECT_AFTER, 1);
    expect(warnings).toEqual([SUSPECT_AFTER, SUSPECT_AFTER]);
    // Each of those addresses still has its definite verdict.
    expect(dns.verdict('198.51.0.0')).toBe(false);
  });

  it("uses the service's reverse DNS verdicts on this thread at once, and still tells the workers", async () => {
    const service = new VerificationService({ clock: new ManualClock(Date.UTC(2026, 10, 24)), dataDir: null, rangeRefreshMs: null, dns: fakeDns });
    try {
      service.setRanges(FIXTURE_RANGES);
      const snapshots: VerifierSnapshot[] = [];
      service.subscribe((snapshot) => snapshots.push(snapshot));
      const verifier = service.verifier();
      const googlebot = (ip: string): string => verifier.verify({ category: 'bot', agent: 'Googlebot', operator: null, ip });
      // Asked for by the verify itself; the service checks them in the background.
      expect(googlebot('66.249.66.1')).toBe('claimed');
      expect(googlebot('198.51.100.8')).toBe('claimed');
      await service.settled();
      expect(googlebot('66.249.66.1')).toBe('verified');
      expect(googlebot('198.51.100.8')).toBe('spoofed');
      // This thread's verifier is kept (the block memo with it); the workers' next snapshot carries the verdicts.
      for (let waited = 0; snapshots.length === 0 && waited < 5_000; waited += 25) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(new Map(snapshots.at(-1)!.rdns)).toEqual(
        new Map([
          ['66.249.66.1', true],
          ['198.51.100.8', false],
        ]),
      );
    } finally {
      service.stop();
    }
  });

  it('leaves a verdict open when DNS does not answer, to try again later', async () => {
    const clock = new ManualClock();
    const dns = new ForwardConfirmedDns({
      clock,
      resolver: { reverse: () => Promise.reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })), forward: () => Promise.resolve([]) },
    });
    dns.request('66.249.66.1', ['googlebot.com']);
    await dns.settled();
    expect(dns.verdict('66.249.66.1')).toBeUndefined();
  });
});

describe('applyVerification', () => {
  it('never counts a spoofed hit as the agent it claims', () => {
    const claimed = { class: 'ai-training' as const, category: 'ai-training' as const, agent: 'GPTBot', operator: 'OpenAI' };
    expect(applyVerification(claimed, 'verified')).toEqual(claimed);
    expect(applyVerification(claimed, 'claimed')).toEqual(claimed);
    expect(applyVerification(claimed, 'spoofed')).toEqual({ class: 'bot', category: 'bot', agent: 'GPTBot (spoofed)', operator: null });
    expect(applyVerification({ class: 'ai', category: 'ai-assistant', agent: 'ChatGPT', operator: 'OpenAI' }, 'spoofed').class).toBe('bot');
  });
});
