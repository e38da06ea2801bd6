import { CATEGORY_CODES, CLASS_CODES, EVIDENCE_CODES, VERIFICATION_CODES } from './analytics-codes.js';
import type { PreparedColumns } from './prepare-batch.js';
import { SPOOFED_SUFFIX } from './verification/apply-verification.js';

/**
 * Turns rows whose signed nonce another process had already claimed into what any spoofed
 * hit counts as (applyVerification): a `bot` named after the claim with " (spoofed)", of no
 * operator. Runs on the prepared columns before they are encoded and stored.
 */
export function relabelReplays(columns: PreparedColumns, rows: ReadonlySet<number>): void {
  const botCode = CLASS_CODES.bot;
  const agentRows = new Map<string, number>();
  columns.agents.forEach((agent, index) => agentRows.set(`${agent.classCode}:${agent.name}`, index));
  for (const row of rows) {
    if (columns.verification[row] === VERIFICATION_CODES.spoofed) continue;
    const claimed = columns.agentIndex[row]!;
    const name = claimed === -1 ? null : `${columns.agents[claimed]!.name}${SPOOFED_SUFFIX}`;
    let agentIndex = -1;
    if (name !== null) {
      agentIndex = agentRows.get(`${botCode}:${name}`) ?? columns.agents.push({ classCode: botCode, name }) - 1;
      agentRows.set(`${botCode}:${name}`, agentIndex);
    }
    columns.agentIndex[row] = agentIndex;
    columns.classCode[row] = botCode;
    columns.category[row] = CATEGORY_CODES.bot;
    columns.verification[row] = VERIFICATION_CODES.spoofed;
    columns.evidence[row] = EVIDENCE_CODES.signature;
  }
}
