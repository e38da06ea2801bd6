import { AGENT_KIND_BASE, CATEGORY_CODES, CLASS_CODES, EVIDENCE_CODES, VERIFICATION_CODES } from '../analytics-codes.js';
import type { SqlRunner } from '../analytics-store.js';
import type { Verification } from '../classification/hit-category.js';
import { SPOOFED_SUFFIX } from '../verification/apply-verification.js';
import type { RangeCatalog } from '../verification/range-catalog.js';
import { redecideVerification } from '../verification/range-redecision.js';
import { dimensionId, type StoredHitVerdict } from './stored-hit-verdicts.js';

/** One re-verified group of stored hits: its key and what its hits become. */
export interface StoredReverification {
  userAgent: number;
  page: number;
  markdownAccept: number;
  addressBlock: string;
  evidence: number;
  verificationBefore: number;
  classCode: number;
  agent: number | null;
  category: number;
  verification: number;
}

/** One distinct group of a site's re-decidable hits, as read from the store. */
export interface EvidenceKey {
  user_agent: number;
  page: number;
  markdown_accept: number;
  address_block: string;
  evidence: number;
  verification: number;
}

const VERIFICATION_BY_CODE = new Map(Object.entries(VERIFICATION_CODES).map(([name, code]) => [code, name as Verification]));

/**
 * The verification each distinct (user agent, page, Markdown Accept, block, evidence, label)
 * of a site's non-human hits from `fromAt` on gets under `ranges` (range-redecision.ts),
 * with the class, agent and category that follow: a spoofed claim counts as the bot
 * "<agent> (spoofed)" (applyVerification). Hits that stored no re-decidable evidence, or
 * that the table now calls human, are left to reclassifySite's own rules.
 */
export async function storedReverifications(
  runner: SqlRunner,
  ranges: RangeCatalog,
  verdicts: readonly StoredHitVerdict[],
  site: number,
  fromAt: number,
): Promise<StoredReverification[]> {
  const keys = await runner.all<EvidenceKey>(
    `select distinct coalesce(user_agent, 0) as user_agent, page, markdown_accept, address_block, evidence, verification
     from analytics_hits where site = ? and at >= ? and address_block is not null and evidence in (?, ?)`,
    [site, fromAt, EVIDENCE_CODES.address, EVIDENCE_CODES.dns],
  );
  return reverifyKeys(ranges, verdicts, keys, (name) => dimensionId(runner, site, AGENT_KIND_BASE + CLASS_CODES.bot, name));
}

/**
 * The re-verification of each key (storedReverifications; the ClickHouse reclassifier reads
 * its keys itself). `spoofedAgentId`: the dimension id of a bot agent's name, created when missing.
 */
export async function reverifyKeys(
  ranges: RangeCatalog,
  verdicts: readonly StoredHitVerdict[],
  keys: readonly EvidenceKey[],
  spoofedAgentId: (name: string) => Promise<number>,
): Promise<StoredReverification[]> {
  const byKey = new Map(verdicts.map((verdict) => [`${verdict.userAgent}:${verdict.page}:${verdict.markdownAccept}`, verdict]));
  const spoofedAgents = new Map<string, number>();
  const result: StoredReverification[] = [];
  for (const key of keys) {
    const verdict = byKey.get(`${Number(key.user_agent)}:${Number(key.page)}:${Number(key.markdown_accept)}`);
    if (verdict === undefined || verdict.classCode === CLASS_CODES.human) continue;
    const before = Number(key.verification);
    const verification = redecideVerification(ranges, {
      agent: verdict.agentName,
      block: key.address_block,
      evidence: Number(key.evidence),
      verification: VERIFICATION_BY_CODE.get(before) ?? 'claimed',
    });
    if (verification === null) continue;
    let counted = { classCode: verdict.classCode, agent: verdict.agent, category: verdict.category };
    if (verification === 'spoofed') {
      let agent: number | null = null;
      if (verdict.agentName !== null) {
        const name = `${verdict.agentName}${SPOOFED_SUFFIX}`;
        agent = spoofedAgents.get(name) ?? (await spoofedAgentId(name));
        spoofedAgents.set(name, agent);
      }
      counted = { classCode: CLASS_CODES.bot, agent, category: CATEGORY_CODES.bot };
    }
    result.push({
      userAgent: Number(key.user_agent),
      page: Number(key.page),
      markdownAccept: Number(key.markdown_accept),
      addressBlock: key.address_block,
      evidence: Number(key.evidence),
      verificationBefore: before,
      ...counted,
      verification: VERIFICATION_CODES[verification],
    });
  }
  return result;
}
