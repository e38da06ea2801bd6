import { EVIDENCE_CODES } from '../analytics-codes.js';
import type { Verification } from '../classification/hit-category.js';
import { blockState } from './address-block.js';
import type { RangeCatalog } from './range-catalog.js';

/** What a stored hit kept for re-verification (the hit-address-evidence migration). */
export interface StoredVerificationEvidence {
  /** The claimed agent's name under the current table (not the " (spoofed)" one); null for none. */
  agent: string | null;
  block: string | null;
  evidence: number;
  verification: Verification;
}

/**
 * The verification a stored hit gets under `ranges`, or null when it stored no evidence
 * (the reclassification's older rules apply). Follows EvidenceVerifier's order with the
 * stored block in place of the address: exactly the fresh verdict whenever no list cuts the
 * block (docs/classification.md, "Re-verification when the ranges change"); a block that a
 * list now cuts (a refresh brought a finer prefix) proves nothing either way: `claimed`.
 * Reverse DNS cannot be asked about a block: a DNS verdict is kept, and an address that
 * only DNS could decide is `claimed`, as at ingest before the lookup answers.
 */
export function redecideVerification(ranges: RangeCatalog, stored: StoredVerificationEvidence): Verification | null {
  if (stored.evidence === EVIDENCE_CODES.none) return null;
  if (stored.evidence === EVIDENCE_CODES.signature || stored.evidence === EVIDENCE_CODES.inexact) return stored.verification;
  if (stored.block === null) return null;
  const agent = stored.agent?.toLowerCase() ?? null;
  const sets = agent === null ? [] : ranges.sets.filter((set) => set.agents.includes(agent));
  if (sets.length === 0) return 'claimed';
  let partial = false;
  let dnsChecked = false;
  let complete = false;
  for (const set of sets) {
    const state = blockState(set.table, stored.block);
    if (state === 'inside') return 'verified';
    partial ||= state === 'partial';
    dnsChecked ||= set.rdnsSuffixes.length > 0;
    complete ||= set.complete;
  }
  if (partial) return 'claimed';
  if (dnsChecked) return stored.evidence === EVIDENCE_CODES.dns ? stored.verification : 'claimed';
  return complete ? 'spoofed' : 'claimed';
}
