import { LRUCache } from 'lru-cache';
import type { Clock } from '../../core/clock.js';
import type { Verification } from '../classification/hit-category.js';
import { BLOCK_MEMO_SIZE, storedAddressBlock, type StoredAddress } from './address-block.js';
import type { HitVerifier, VerificationInput, VerifierEvidenceSource } from './hit-verifier.js';
import { parseAddress, type ParsedAddress } from './ip-address.js';
import { tableContains, type RangeTable } from './ip-range-set.js';
import type { NonceRegistry } from './nonce-registry.js';
import type { RangeCatalog } from './range-catalog.js';
import { signerBelongsTo } from './signer-domains.js';
import { SignatureMemo, verifyWebBotAuth, type KeyLookup } from './web-bot-auth.js';

/** Everything the verifier checks against; gathered off the ingest path, read synchronously. */
export interface VerifierEvidence {
  ranges: RangeCatalog;
  keys: KeyLookup;
  /** A cached forward-confirmed reverse DNS verdict for the address, or undefined when not checked yet. */
  rdnsVerdict(ip: string): boolean | undefined;
  nonces: NonceRegistry | null;
  clock: Clock;
}

/** Checks the verifier could not make without the network; the service runs them in the background. */
export interface VerificationWants {
  /** Key directories to fetch, each with the project whose hit named it (null: none). */
  directories: Array<{ agentUrl: string; projectId: string | null }>;
  lookups: Array<{ ip: string; suffixes: string[] }>;
}

const MAX_WANTS = 256;

type RangeSet = RangeCatalog['sets'][number];

/**
 * The real HitVerifier: a Web Bot Auth signature first, then the operator's published
 * ranges, then forward-confirmed reverse DNS; what it could not check yet (an unknown key
 * directory, an address not yet looked up) it labels `claimed` and lists as wanted.
 * The order of the evidence and the labels are in docs/classification.md, Verification.
 */
export class EvidenceVerifier implements HitVerifier {
  private readonly setsByAgent = new Map<string, RangeSet[]>();
  /** Wanted directories → the project of the first hit that named each. */
  private directories = new Map<string, string | null>();
  private lookups = new Map<string, string[]>();
  private readonly memo = new SignatureMemo();
  /** What decided the last verify() (stored with the hit for re-verification, the hit-address-evidence migration). */
  lastEvidence: VerifierEvidenceSource = 'address';
  readonly rangesVersion: string;
  private readonly tables: RangeTable[];
  /**
   * The last address text parsed and its value: the pipeline calls verify() and then
   * storedAddress() with the same hit's address, so it is parsed once. One entry, replaced
   * by the next hit's, so no address outlives the hit after it.
   */
  private lastText: string | null = null;
  private lastAddress: ParsedAddress | null = null;
  /** IPv4 blocks already built, by block (address-block.ts); the tables are this verifier's for its life. */
  private readonly blocks = new LRUCache<number, StoredAddress>({ max: BLOCK_MEMO_SIZE });

  constructor(private readonly evidence: VerifierEvidence) {
    this.rangesVersion = evidence.ranges.fingerprint ?? evidence.ranges.version;
    this.tables = evidence.ranges.sets.map((set) => set.table);
    for (const set of evidence.ranges.sets) {
      for (const agent of set.agents) this.setsByAgent.set(agent, [...(this.setsByAgent.get(agent) ?? []), set]);
    }
  }

  verify(input: VerificationInput): Verification {
    this.lastEvidence = 'address';
    if (input.category === 'human') return 'none';
    const sets = input.agent === null ? undefined : this.setsByAgent.get(input.agent.toLowerCase());
    if (input.signature != null) {
      const operator = input.operator ?? sets?.[0]?.operator ?? null;
      const verdict = verifyWebBotAuth(input.signature, this.evidence.keys, input.at ?? this.evidence.clock.now(), this.evidence.nonces, {
        memo: this.memo,
        eventId: input.eventId ?? null,
        authorities: input.authorities ?? null,
        onNonce: input.onNonce ?? null,
      });
      // Not fetched, stale, or failed a while ago: the service fetches it again when it may.
      const refetch = verdict.result === 'pending' || verdict.result === 'unavailable' || (verdict.result === 'valid' && verdict.stale);
      if (refetch && this.directories.size < MAX_WANTS && !this.directories.has(verdict.agentUrl))
        this.directories.set(verdict.agentUrl, input.projectId ?? null);
      if (verdict.result === 'invalid' || (verdict.result === 'valid' && operator !== null && signerBelongsTo(operator, verdict.agentUrl))) {
        this.lastEvidence = 'signature';
        return verdict.result === 'invalid' ? 'spoofed' : 'verified';
      }
    }
    if (sets === undefined || input.ip === null) return 'claimed';
    const address = this.parse(input.ip);
    if (address === null) return 'claimed';
    let suffixes: string[] = [];
    let complete = false;
    for (const set of sets) {
      if (tableContains(set.table, address)) return 'verified';
      if (set.rdnsSuffixes.length > 0) suffixes = [...suffixes, ...set.rdnsSuffixes];
      complete ||= set.complete;
    }
    if (suffixes.length > 0) {
      const confirmed = this.evidence.rdnsVerdict(input.ip);
      if (confirmed !== undefined) {
        this.lastEvidence = 'dns';
        return confirmed ? 'verified' : 'spoofed';
      }
      if (this.lookups.size < MAX_WANTS) this.lookups.set(input.ip, suffixes);
      return 'claimed';
    }
    return complete ? 'spoofed' : 'claimed';
  }

  /** The block of `ip` a non-human hit stores (address-block.ts), against every list; null for an unreadable address. */
  storedAddress(ip: string): StoredAddress | null {
    const address = this.parse(ip);
    return address === null ? null : storedAddressBlock(this.tables, address, this.blocks);
  }

  private parse(ip: string): ParsedAddress | null {
    if (ip !== this.lastText) {
      this.lastAddress = parseAddress(ip);
      this.lastText = ip;
    }
    return this.lastAddress;
  }

  /** The checks wanted since the last call; the caller hands them to the verification service. */
  takeWants(): VerificationWants | null {
    if (this.directories.size === 0 && this.lookups.size === 0) return null;
    const wants = {
      directories: [...this.directories].map(([agentUrl, projectId]) => ({ agentUrl, projectId })),
      lookups: [...this.lookups].map(([ip, suffixes]) => ({ ip, suffixes: [...new Set(suffixes)] })),
    };
    this.directories = new Map();
    this.lookups = new Map();
    return wants;
  }
}
