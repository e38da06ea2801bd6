import { AGENT_KIND_BASE, CATEGORY_CODES, CLASS_CODES, READ_KIND_CODES, REFERRAL_KIND } from '../analytics-codes.js';
import type { SqlRunner } from '../analytics-store.js';
import { aiReferralOf } from '../classification/ai-referral.js';
import type { HitClassifier } from '../classification/classify-hit.js';
import { readKindOf } from '../classification/read-kind.js';

/** What a stored hit's user agent, page and Markdown Accept say under the current table. */
export interface StoredHitVerdict {
  userAgent: number;
  page: number;
  markdownAccept: number;
  classCode: number;
  /** Dimension id of the agent (kind AGENT_KIND_BASE + class); null for none. */
  agent: number | null;
  /** The agent's name (the claim re-verification checks). */
  agentName: string | null;
  category: number;
  readKind: number;
}

interface VerdictKey {
  user_agent: number;
  page: number;
  markdown_accept: number;
  text: string | null;
  path: string;
}

/**
 * One verdict per distinct (user agent, page, Markdown Accept) of a site's hits from
 * `fromAt` on: classification depends on nothing else a hit stores. The Accept header is
 * not stored, only whether it preferred Markdown, which is all the classifier reads of it.
 */
export async function storedHitVerdicts(runner: SqlRunner, classifier: HitClassifier, site: number, fromAt: number): Promise<StoredHitVerdict[]> {
  const keys = await runner.all<VerdictKey>(
    `select k.user_agent, k.page, k.markdown_accept, u.user_agent as text, d.name as path
     from (select distinct coalesce(user_agent, 0) as user_agent, page, markdown_accept from analytics_hits where site = ? and at >= ?) k
     left join analytics_user_agents u on u.id = k.user_agent
     join analytics_dimensions d on d.id = k.page`,
    [site, fromAt],
  );
  const agentIds = new Map<string, number>();
  const verdicts: StoredHitVerdict[] = [];
  for (const key of keys) {
    const verdict = classifyStored(classifier, key.text, key.path, Number(key.markdown_accept));
    let agent: number | null = null;
    if (verdict.agentName !== null) {
      const cacheKey = `${verdict.classCode}:${verdict.agentName}`;
      agent = agentIds.get(cacheKey) ?? (await dimensionId(runner, site, AGENT_KIND_BASE + verdict.classCode, verdict.agentName));
      agentIds.set(cacheKey, agent);
    }
    verdicts.push({
      userAgent: Number(key.user_agent),
      page: Number(key.page),
      markdownAccept: Number(key.markdown_accept),
      classCode: verdict.classCode,
      agent,
      agentName: verdict.agentName,
      category: verdict.category,
      readKind: verdict.readKind,
    });
  }
  return verdicts;
}

/** What the classifier says of a stored hit's user agent (text), page path and Markdown Accept (1 or 0). */
export function classifyStored(
  classifier: HitClassifier,
  userAgent: string | null,
  path: string,
  markdownAccept: number,
): { classCode: number; agentName: string | null; category: number; readKind: number } {
  const input = { userAgent, path, accept: markdownAccept === 1 ? 'text/markdown' : null };
  const classification = classifier.classify(input);
  return {
    classCode: CLASS_CODES[classification.class],
    agentName: classification.agent,
    category: CATEGORY_CODES[classification.category],
    readKind: READ_KIND_CODES[readKindOf(input)],
  };
}

/** The AI product each distinct referrer of the site's hits from `fromAt` on names, as a REFERRAL_KIND dimension id. */
export async function storedReferrals(runner: SqlRunner, site: number, fromAt: number): Promise<Array<{ referrer: string; referral: number }>> {
  const rows = await runner.all<{ referrer: string }>('select distinct referrer from analytics_hits where site = ? and at >= ? and referrer is not null', [
    site,
    fromAt,
  ]);
  const referrals: Array<{ referrer: string; referral: number }> = [];
  for (const { referrer } of rows) {
    const product = aiReferralOf(referrer, null);
    if (product !== null) referrals.push({ referrer, referral: await dimensionId(runner, site, REFERRAL_KIND, product) });
  }
  return referrals;
}

/** The id of a dictionary row, created when missing (as the stores' ensureDimensions, inside the caller's transaction). */
export async function dimensionId(runner: SqlRunner, site: number, kind: number, name: string): Promise<number> {
  await runner.run('insert into analytics_dimensions (site, kind, name) values (?, ?, ?) on conflict (site, kind, name) do nothing', [site, kind, name]);
  const [row] = await runner.all<{ id: number }>('select id from analytics_dimensions where site = ? and kind = ? and name = ?', [site, kind, name]);
  return Number(row!.id);
}
