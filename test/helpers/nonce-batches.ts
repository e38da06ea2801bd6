import type { AnalyticsStore, HitBatch } from '../../src/analytics/analytics-store.js';
import { VERIFICATION_CODES } from '../../src/analytics/analytics-codes.js';
import type { NonceClaim } from '../../src/analytics/verification/nonce-ledger.js';
import type { Database } from '../../src/db/database.js';
import { createHash } from 'node:crypto';
import { ledgerKey } from '../../src/analytics/verification/ledger-key.js';

/**
 * A ledger key (ledger-key.ts) named by `label`: its hash in place of a nonce's digest,
 * after `expiresAt` in hex, as the verifier makes them. The SQLite prune reads the expiry
 * from the key, so tests of it need keys of this shape.
 */
export function testLedgerKey(label: string, expiresAt: number): string {
  return ledgerKey(expiresAt, createHash('sha256').update(label).digest());
}

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

/**
 * Makes inserts of hit rows fail inside their statement while switched on, as a failed
 * insert would (constraint, disk, a killed statement): on SQLite a temporary trigger of the
 * connection, on PostgreSQL a trigger reading a switch table. Either way the whole
 * transaction, or the one statement, rolls back.
 */
export async function hitInsertFailure(database: Database): Promise<{ set(on: boolean): Promise<void> }> {
  const raw = database.raw;
  if (raw.dialect === 'sqlite') {
    return {
      set: (on) =>
        Promise.resolve(
          void raw.connection.exec(
            on
              ? "create temp trigger fail_hits before insert on analytics_hits begin select raise(abort, 'injected failure'); end"
              : 'drop trigger if exists temp.fail_hits',
          ),
        ),
    };
  }
  await raw.pool.query(`create table test_fail_hits (armed boolean);
    create function test_fail_hits() returns trigger language plpgsql as $$
      begin if exists (select 1 from test_fail_hits) then raise exception 'injected failure'; end if; return new; end $$;
    create trigger test_fail_hits before insert on analytics_hits for each statement execute function test_fail_hits()`);
  return {
    set: async (on) => {
      await raw.pool.query(on ? 'insert into test_fail_hits values (true)' : 'delete from test_fail_hits');
    },
  };
}
