import type { AnalyticsStore, HitBatch } from '../../src/analytics/analytics-store.js';
import { VERIFICATION_CODES } from '../../src/analytics/analytics-codes.js';
import type { NonceClaim } from '../../src/analytics/verification/nonce-ledger.js';

/**
 * A batch of verified hits whose rows carry the given signed nonces (batch row i carries
 * given[i], its visitor id given[i].row), all at `at`, so a test finds them again by
 * that instant and visitor: rows a store relabels as replays come back `spoofed`.
 */
export function claimedBatch(site: number, classifierVersion: number, at: number, given: readonly NonceClaim[], spoofedAgent = 0): HitBatch {
  const count = given.length;
  const claims = given.map((claim, row) => ({ ...claim, row }));
  return {
    site,
    count,
    classifierVersion,
    at: new Float64Array(count).fill(at),
    page: new Int32Array(count).fill(1),
    visitor: BigInt64Array.from(given, (claim) => BigInt(claim.row)),
    classCode: new Uint8Array(count).fill(1),
    agent: new Int32Array(count),
    userAgent: new Int32Array(count),
    referrer: Array<string | null>(count).fill(null),
    markdownAccept: new Uint8Array(count),
    eventId: claims.map((claim) => (claim.owner === '' ? null : `event-${claim.owner}`)),
    category: new Uint8Array(count),
    verification: new Uint8Array(count).fill(VERIFICATION_CODES.verified),
    readKind: new Uint8Array(count),
    status: new Uint16Array(count),
    referral: new Int32Array(count),
    nonces: { claims, nowSeconds: Math.floor(at / 1000), spoofedAgent: new Int32Array(count).fill(spoofedAgent) },
  };
}

/** The rows (visitor = claim row) stored at `at` that came out spoofed. */
export async function spoofedRows(store: AnalyticsStore, at: number): Promise<Set<number>> {
  const rows = await store.select<{ visitor: number | string }>('select visitor from analytics_hits where at = ? and verification = ?', [
    at,
    VERIFICATION_CODES.spoofed,
  ]);
  return new Set(rows.map((row) => Number(row.visitor)));
}

/** How many nonces the shared table holds. */
export async function claimedNonces(store: AnalyticsStore): Promise<number> {
  const [row] = await store.select<{ n: number | string }>('select count(*) as n from analytics_signature_nonces', []);
  return Number(row?.n ?? 0);
}
