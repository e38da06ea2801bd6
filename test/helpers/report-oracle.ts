import type { TaxonomyHit } from './taxonomy-hits.js';

/**
 * The reports over the hit taxonomy by brute force, straight from their documented
 * definitions (docs/analytics.md, "Reports on AI readers"), written apart from the server.
 */
const AI_CATEGORIES = ['ai-assistant', 'ai-agent', 'ai-coding-agent', 'ai-search', 'ai-training', 'ai-other'] as const;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const inWindow = (hits: readonly TaxonomyHit[], from: number, to: number) => hits.filter((hit) => hit.at >= from && hit.at < to);
const isAiReader = (hit: TaxonomyHit) =>
  hit.class !== 'human' &&
  (hit.category === undefined ? ['ai', 'ai-search', 'ai-training'].includes(hit.class) : (AI_CATEGORIES as readonly string[]).includes(hit.category));

export function oracleAgents(hits: readonly TaxonomyHit[], from: number, to: number) {
  const groups = new Map<string, TaxonomyHit[]>();
  for (const hit of inWindow(hits, from, to)) {
    if (hit.agent === undefined) continue;
    const key = JSON.stringify([hit.agent, hit.class, hit.category ?? 'uncategorised']);
    groups.set(key, [...(groups.get(key) ?? []), hit]);
  }
  const agents = [...groups].map(([key, group]) => {
    const [agent, hitClass, category] = JSON.parse(key) as [string, string, string];
    const verified = group.filter((hit) => hit.verification === 'verified').length;
    return {
      agent,
      class: hitClass,
      category,
      visitors: new Set(group.map((hit) => hit.visitor)).size,
      hits: group.length,
      verifiedHits: verified,
      verifiedShare: Math.round((verified / group.length) * 10_000) / 10_000,
      spoofedHits: group.filter((hit) => hit.verification === 'spoofed').length,
      pages: new Set(group.map((hit) => hit.path)).size,
      markdownReads: group.filter((hit) => hit.readKind === 'markdown').length,
      llmsTxtReads: group.filter((hit) => hit.readKind === 'llms-txt').length,
      llmsFullTxtReads: group.filter((hit) => hit.readKind === 'llms-full-txt').length,
    };
  });
  return agents.sort((a, b) => b.hits - a.hits || byText(a.agent, b.agent) || byText(a.category, b.category) || byText(a.class, b.class));
}

export function oraclePages(hits: readonly TaxonomyHit[], from: number, to: number) {
  const paths = new Map<string, TaxonomyHit[]>();
  for (const hit of inWindow(hits, from, to)) paths.set(hit.path, [...(paths.get(hit.path) ?? []), hit]);
  const visitors = (group: TaxonomyHit[], keep: (hit: TaxonomyHit) => boolean) => new Set(group.filter(keep).map((hit) => hit.visitor)).size;
  const pages = [...paths].map(([path, group]) => {
    const humanReaders = visitors(group, (hit) => hit.class === 'human');
    const aiReaders = visitors(group, isAiReader);
    return {
      path,
      humanReaders,
      aiReaders,
      aiReadersByCategory: Object.fromEntries(
        AI_CATEGORIES.map((category) => [category, visitors(group, (hit) => hit.class !== 'human' && hit.category === category)]),
      ),
      aiReferrals: group.filter((hit) => hit.class === 'human' && hit.referral !== undefined).length,
      agentSkew: Math.round((aiReaders / (humanReaders + 1)) * 100) / 100,
    };
  });
  const referred = inWindow(hits, from, to).filter((hit) => hit.class === 'human' && hit.referral !== undefined);
  const sources = [...new Set(referred.map((hit) => hit.referral!))].map((source) => {
    const group = referred.filter((hit) => hit.referral === source);
    return { source, referrals: group.length, visitors: new Set(group.map((hit) => hit.visitor)).size };
  });
  return {
    pages: pages.filter((page) => page.humanReaders + page.aiReaders + page.aiReferrals > 0),
    referralSources: sources.sort((a, b) => b.referrals - a.referrals || byText(a.source, b.source)),
  };
}

/** A stable sort by path, then by the count alone (ties keep path order), as /visitors' oracle does; agentSkew ties by aiReaders first. */
export function oraclePagesOrder<Page extends { path: string; aiReaders: number }>(pages: readonly Page[], sort: string, order?: string): Page[] {
  const direction = order ?? (sort === 'path' ? 'asc' : 'desc');
  const sorted = [...pages].sort((a, b) => byText(a.path, b.path));
  if (sort === 'path') return direction === 'asc' ? sorted : sorted.reverse();
  if (sort === 'agentSkew') sorted.sort((a, b) => b.aiReaders - a.aiReaders);
  const key = sort as keyof Page;
  return sorted.sort((a, b) => (direction === 'asc' ? 1 : -1) * ((a[key] as number) - (b[key] as number)));
}

export function oracleAgentErrors(hits: readonly TaxonomyHit[], from: number, to: number) {
  const groups = new Map<string, TaxonomyHit[]>();
  for (const hit of inWindow(hits, from, to)) {
    if (hit.class === 'human' || hit.status === undefined || hit.status < 400 || hit.status >= 500) continue;
    const key = JSON.stringify([hit.path, hit.status]);
    groups.set(key, [...(groups.get(key) ?? []), hit]);
  }
  const errors = [...groups].map(([key, group]) => {
    const [path, status] = JSON.parse(key) as [string, number];
    const agentHits = new Map<string, number>();
    for (const hit of group) if (hit.agent !== undefined) agentHits.set(hit.agent, (agentHits.get(hit.agent) ?? 0) + 1);
    const agents = [...agentHits]
      .sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))
      .map(([agent]) => agent)
      .slice(0, 10);
    return { path, status, hits: group.length, visitors: new Set(group.map((hit) => hit.visitor)).size, agents };
  });
  return errors.sort((a, b) => b.hits - a.hits || byText(a.path, b.path) || a.status - b.status);
}
