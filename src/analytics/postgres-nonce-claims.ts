import type pg from 'pg';
import type { HitBatch } from './analytics-store.js';
import { relabelReplays } from './relabel-replays.js';
import { claimNoncesPostgres, type NonceClaim } from './verification/nonce-ledger.js';

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
