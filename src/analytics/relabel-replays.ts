import { CATEGORY_CODES, CLASS_CODES, EVIDENCE_CODES, VERIFICATION_CODES } from './analytics-codes.js';
import type { BatchNonces, HitBatch } from './analytics-store.js';
import type { PreparedColumns } from './prepare-batch.js';
import { SPOOFED_SUFFIX } from './verification/apply-verification.js';

/** A (class, name) agent, as the encoder ensures dictionary ids for them. */
export interface AgentName {
  classCode: number;
  name: string;
}

/**
 * The nonces of a batch to claim in its insert transaction, with the "(spoofed)" agent id
 * each claimed row would become if its nonce turns out taken. Those ids are ensured here,
 * before the transaction and idempotently (an agent that is never used costs one dictionary
 * row per site), so the insert transaction itself writes nothing but the claim and the hits.
 */
export async function batchNonces(
  columns: PreparedColumns,
  nowSeconds: number,
  ensureAgents: (agents: readonly AgentName[]) => Promise<Int32Array>,
): Promise<BatchNonces> {
  const names: AgentName[] = [];
  const position = new Map<string, number>();
  const nameIndex = columns.nonces.map((claim) => {
    const claimed = columns.agentIndex[claim.row]!;
    if (claimed === -1) return -1;
    const name = `${columns.agents[claimed]!.name}${SPOOFED_SUFFIX}`;
    let index = position.get(name);
    if (index === undefined) {
      index = names.push({ classCode: CLASS_CODES.bot, name }) - 1;
      position.set(name, index);
    }
    return index;
  });
  const ids = names.length === 0 ? new Int32Array(0) : await ensureAgents(names);
  return { claims: columns.nonces, nowSeconds, spoofedAgent: Int32Array.from(nameIndex, (index) => (index === -1 ? 0 : ids[index]!)) };
}

/**
 * The batch with the rows whose signed nonce another event had already claimed turned into
 * what any spoofed hit counts as (applyVerification): a `bot` named after the claim with
 * " (spoofed)", of no operator. A copy of the columns it changes, so a transaction that
 * rolls back leaves the batch as it was for the next attempt.
 */
export function relabelReplays(batch: HitBatch, rows: ReadonlySet<number>): HitBatch {
  const nonces = batch.nonces;
  if (rows.size === 0 || nonces === undefined) return batch;
  const spoofedOf = new Map<number, number>();
  nonces.claims.forEach((claim, index) => spoofedOf.set(claim.row, nonces.spoofedAgent[index]!));
  const relabelled: HitBatch = {
    ...batch,
    classCode: batch.classCode.slice(),
    agent: batch.agent.slice(),
    category: batch.category.slice(),
    verification: batch.verification.slice(),
    evidence: batch.evidence?.slice() ?? new Uint8Array(batch.count),
  };
  for (const row of rows) {
    if (relabelled.verification[row] === VERIFICATION_CODES.spoofed) continue;
    relabelled.agent[row] = spoofedOf.get(row) ?? 0;
    relabelled.classCode[row] = CLASS_CODES.bot;
    relabelled.category[row] = CATEGORY_CODES.bot;
    relabelled.verification[row] = VERIFICATION_CODES.spoofed;
    relabelled.evidence![row] = EVIDENCE_CODES.signature;
  }
  return relabelled;
}
