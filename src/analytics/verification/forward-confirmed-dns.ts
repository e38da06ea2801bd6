import { Resolver } from 'node:dns/promises';
import type { Clock } from '../../core/clock.js';
import { parseAddress } from './ip-address.js';
import { hostHasSuffix } from './signer-domains.js';

/** The two DNS questions forward-confirmed reverse DNS asks; injectable for tests. */
export interface DnsResolver {
  reverse(ip: string): Promise<string[]>;
  /** Every IPv4 and IPv6 address of the host. */
  forward(host: string): Promise<string[]>;
}

export function systemDnsResolver(timeoutMs = 3_000): DnsResolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  const settle = async (query: Promise<string[]>): Promise<string[]> => query.catch(() => []);
  return {
    reverse: (ip) => resolver.reverse(ip),
    forward: async (host) => [...(await settle(resolver.resolve4(host))), ...(await settle(resolver.resolve6(host)))],
  };
}

export interface ForwardConfirmedDnsOptions {
  clock: Clock;
  resolver?: DnsResolver;
  /** Addresses remembered; the oldest verdict goes first. Default 10,000. */
  maxEntries?: number;
  /** How long a verdict holds. Default 24 h; a lookup that failed for a transient reason is retried after 5 min. */
  ttlMs?: number;
  retryMs?: number;
  concurrency?: number;
  onChange?: () => void;
  /**
   * Called once when SUSPECT_AFTER reverse lookups in a row said "no such name" (none gave a
   * name): a resolver that answers NXDOMAIN for every public address (a sandbox, a split
   * horizon) makes every crawler checked this way `spoofed`, which looks like a forged-crawler
   * wave in the reports. Called again only after some lookup gives a name.
   */
  onSuspectResolver?: (failedInARow: number) => void;
}

/** Reverse lookups in a row that said "no such name" before the resolver is suspected. */
export const SUSPECT_AFTER = 100;

/** DNS answers that say "no such name": a definite failure, unlike a timeout. */
const DEFINITE = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/**
 * Forward-confirmed reverse DNS, the check Google, Microsoft and Apple document for their
 * crawlers: the address's PTR name must end in the operator's domain and resolve back to
 * the same address. Runs in the background; verdicts are cached per address (in memory
 * only: raw addresses are never stored) and read synchronously at ingest.
 */
export class ForwardConfirmedDns {
  private readonly verdicts = new Map<string, { confirmed: boolean | undefined; until: number }>();
  private readonly queue = new Map<string, string[]>();
  private running = 0;
  /** Reverse lookups in a row that said "no such name"; -1 once the resolver was reported (until a name comes back). */
  private noSuchName = 0;

  constructor(private readonly options: ForwardConfirmedDnsOptions) {}

  /** The cached verdict, or undefined when the address was not checked (or the check could not finish). */
  verdict(ip: string): boolean | undefined {
    const entry = this.verdicts.get(ip);
    return entry !== undefined && entry.until > this.options.clock.now() ? entry.confirmed : undefined;
  }

  request(ip: string, suffixes: readonly string[]): void {
    const entry = this.verdicts.get(ip);
    if ((entry !== undefined && entry.until > this.options.clock.now()) || this.queue.has(ip) || this.queue.size >= 1_000) return;
    this.queue.set(ip, [...suffixes]);
    this.pump();
  }

  async settled(): Promise<void> {
    while (this.running > 0 || this.queue.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  entries(): Array<[string, boolean]> {
    const now = this.options.clock.now();
    return [...this.verdicts].filter(([, entry]) => entry.until > now && entry.confirmed !== undefined).map(([ip, entry]) => [ip, entry.confirmed!]);
  }

  private pump(): void {
    while (this.running < (this.options.concurrency ?? 8) && this.queue.size > 0) {
      const [ip, suffixes] = this.queue.entries().next().value!;
      this.queue.delete(ip);
      this.running++;
      void this.check(ip, suffixes).then((confirmed) => {
        this.running--;
        const ttl = confirmed === undefined ? (this.options.retryMs ?? 300_000) : (this.options.ttlMs ?? 86_400_000);
        this.verdicts.delete(ip);
        this.verdicts.set(ip, { confirmed, until: this.options.clock.now() + ttl });
        while (this.verdicts.size > (this.options.maxEntries ?? 10_000)) this.verdicts.delete(this.verdicts.keys().next().value!);
        if (confirmed !== undefined) this.options.onChange?.();
        this.pump();
      });
    }
  }

  private countNoSuchName(): void {
    if (this.noSuchName < 0) return;
    this.noSuchName++;
    if (this.noSuchName < SUSPECT_AFTER) return;
    this.options.onSuspectResolver?.(this.noSuchName);
    this.noSuchName = -1;
  }

  /** True: confirmed; false: the name is not the operator's or does not lead back; undefined: DNS did not answer. */
  async check(ip: string, suffixes: readonly string[]): Promise<boolean | undefined> {
    const resolver = this.options.resolver ?? systemDnsResolver();
    const address = parseAddress(ip);
    if (address === null) return false;
    let names: string[];
    try {
      names = await resolver.reverse(ip);
    } catch (error) {
      if (!DEFINITE.has((error as { code?: string }).code ?? '')) return undefined;
      this.countNoSuchName();
      return false;
    }
    this.noSuchName = 0;
    for (const name of names.filter((candidate) => hostHasSuffix(candidate, suffixes)).slice(0, 4)) {
      let forward: string[];
      try {
        forward = await resolver.forward(name);
      } catch {
        continue;
      }
      if (forward.some((candidate) => sameAddress(parseAddress(candidate), address))) return true;
    }
    return false;
  }
}

function sameAddress(a: ReturnType<typeof parseAddress>, b: NonNullable<ReturnType<typeof parseAddress>>): boolean {
  return a !== null && a.family === b.family && a.value === b.value;
}
