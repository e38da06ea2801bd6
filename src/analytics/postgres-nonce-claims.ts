import type pg from 'pg';
import { CATEGORY_CODES, CLASS_CODES, EVIDENCE_CODES, VERIFICATION_CODES } from './analytics-codes.js';
import type { HitBatch } from './analytics-store.js';
import { integerArrayLiteral, textArrayLiteral } from './postgres-array-literal.js';
import { hitColumns, type HitRow } from './postgres-hit-rows.js';
import { relabelReplays } from './relabel-replays.js';
import { claimNoncesPostgres, planClaims, UPSERT_TAIL, type NonceClaim } from './verification/nonce-ledger.js';

/**
 * Claims the signed nonces of a group of batches (PostgreSQL's group commit) in one
 * statement inside the group's transaction, in the group's order: of two batches of one
 * group carrying the same nonce the first keeps it, as if each had been claimed on its
 * own. Returns the batches with their replayed rows relabelled (copies; the originals are
 * left as they were, for a retry after a rollback).
 */
export async function claimGroupNonces(client: pg.ClientBase, batches: HitBatch[]): Promise<HitBatch[]> {
  const claims: NonceClaim[] = [];
  const origin: Array<{ batch: number; row: number }> = [];
  let nowSeconds = 0;
  batches.forEach((batch, index) => {
    if (batch.nonces === undefined) return;
    nowSeconds = Math.max(nowSeconds, batch.nonces.nowSeconds);
    for (const claim of batch.nonces.claims) {
      claims.push({ ...claim, row: origin.push({ batch: index, row: claim.row }) - 1 });
    }
  });
  if (claims.length === 0) return batches;
  const replays = batches.map(() => new Set<number>());
  for (const at of await claimNoncesPostgres(client, claims, nowSeconds)) replays[origin[at]!.batch]!.add(origin[at]!.row);
  return batches.map((batch, index) => relabelReplays(batch, replays[index]!));
}

const spoofed = (column: string, value: string): string =>
  `case when given.replay and given.verification <> ${VERIFICATION_CODES.spoofed} then ${value} else given.${column} end`;

/**
 * INSERT_HITS with the claim of the rows' nonces in the same statement, for a group with no
 * event ids (so every owner is '' and a nonce not taken is a replay, whoever holds it): one
 * statement is its own transaction, so the group keeps the one round trip and commit of the
 * common case. A row is a replay when the group itself repeats its nonce ($25) or when the
 * upsert did not take it; it is then relabelled as relabel-replays.ts does.
 */
const INSERT_CLAIMED_HITS = `with claimed as (
    insert into analytics_signature_nonces as n (nonce, expires_at, owner)
    select nonce, expires_at, '' from unnest($19::text[], $20::bigint[]) as claim (nonce, expires_at) order by nonce
    ${UPSERT_TAIL.replace('NOW', '$21::bigint')}),
  batch as (insert into analytics_ingest_batches (hits) values ($3) returning id),
  given as (
    select g.*, (g.repeated = 1 or (g.nonce is not null and g.nonce not in (select nonce from claimed))) as replay
    from unnest($4::bigint[], $5::integer[], $6::bigint[], $7::smallint[], $8::integer[], $9::integer[], $10::text[], $11::smallint[],
      $12::smallint[], $13::smallint[], $14::smallint[], $15::smallint[], $16::integer[], $17::text[], $18::smallint[], $22::text[],
      $23::integer[], $24::smallint[])
      as g (at, page, visitor, class, agent, user_agent, referrer, markdown_accept, category, verification, read_kind, status, referral,
        address_block, evidence, nonce, spoofed_agent, repeated))
  insert into analytics_hits
  (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, batch,
   category, verification, read_kind, status, referral, address_block, evidence)
  select $1::integer, at, page, visitor, ${spoofed('class', String(CLASS_CODES.bot))}, ${spoofed('agent', 'nullif(given.spoofed_agent, 0)')},
    user_agent, referrer, markdown_accept, $2::integer, (select id from batch),
    ${spoofed('category', String(CATEGORY_CODES.bot))}, ${spoofed('verification', String(VERIFICATION_CODES.spoofed))}, read_kind, status, referral,
    address_block, ${spoofed('evidence', String(EVIDENCE_CODES.signature))}
  from given`;

const INSERT_CLAIMED_HITS_NAME = 'docwright_insert_claimed_hits';

/**
 * The one statement of a single-statement group (no event ids, one site and classifier
 * version) whose batches carry signed nonces; null when none does.
 */
export function claimedHitsQuery(rows: HitRow[]): pg.QueryConfig | null {
  const claims: NonceClaim[] = [];
  const spoofedAgent = new Int32Array(rows.length);
  const byBatch = new Map<HitBatch, Map<number, { key: string; expiresAt: number; agent: number }>>();
  let nowSeconds = 0;
  for (const { batch } of rows) {
    if (batch.nonces === undefined || byBatch.has(batch)) continue;
    nowSeconds = Math.max(nowSeconds, batch.nonces.nowSeconds);
    const spoofedOf = batch.nonces.spoofedAgent;
    byBatch.set(
      batch,
      new Map(batch.nonces.claims.map((claim, index) => [claim.row, { key: claim.key, expiresAt: claim.expiresAt, agent: spoofedOf[index]! }])),
    );
  }
  if (byBatch.size === 0) return null;
  const nonceOf: Array<string | null> = rows.map(({ batch, index }, position) => {
    const claim = byBatch.get(batch)?.get(index);
    if (claim === undefined) return null;
    spoofedAgent[position] = claim.agent;
    claims.push({ row: position, key: claim.key, expiresAt: claim.expiresAt, owner: '' });
    return claim.key;
  });
  const { unique, replays } = planClaims(claims);
  return {
    name: INSERT_CLAIMED_HITS_NAME,
    text: INSERT_CLAIMED_HITS,
    values: [
      ...hitColumns(rows),
      unique.map((claim) => claim.key),
      unique.map((claim) => claim.expiresAt),
      nowSeconds,
      textArrayLiteral(nonceOf, (key) => key),
      integerArrayLiteral([...spoofedAgent], (agent) => agent),
      integerArrayLiteral(
        rows.map((_, position) => (replays.has(position) ? 1 : 0)),
        (repeated) => repeated,
      ),
    ],
  };
}
