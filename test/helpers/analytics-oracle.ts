import { classifyHit } from '../../src/analytics/classification/classify-hit.js';

/** A hit as the brute-force oracle sees it. */
export interface OracleHit {
  at: number;
  path: string;
  visitor: string;
  userAgent: string;
  /** The request's Accept header, when the hit had one. */
  accept?: string | null;
}

export interface OracleCounts {
  human: number;
  ai: number;
  total: number;
}

function countSets(human: Set<string>, ai: Set<string>): OracleCounts {
  return { human: human.size, ai: ai.size, total: new Set([...human, ...ai]).size };
}

/** Unique visitors by brute force: sets of visitor ids per page and class, straight from the definition. */
export function bruteForceVisitors(hits: readonly OracleHit[], from: number | null, to: number | null) {
  const pages = new Map<string, { human: Set<string>; ai: Set<string> }>();
  const site = { human: new Set<string>(), ai: new Set<string>() };
  for (const hit of hits) {
    if ((from !== null && hit.at < from) || (to !== null && hit.at >= to)) continue;
    const hitClass = classifyHit({ userAgent: hit.userAgent, path: hit.path, accept: hit.accept ?? null }).class;
    if (hitClass !== 'human' && hitClass !== 'ai') continue;
    const page = pages.get(hit.path) ?? { human: new Set<string>(), ai: new Set<string>() };
    pages.set(hit.path, page);
    page[hitClass].add(hit.visitor);
    site[hitClass].add(hit.visitor);
  }
  const visitors = [...pages].map(([path, sets]) => ({ path, ...countSets(sets.human, sets.ai) }));
  visitors.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { totals: countSets(site.human, site.ai), visitors };
}

/** Views by brute force: every human or ai hit in range is one view of its page; total = human + ai. */
export function bruteForceViews(hits: readonly OracleHit[], from: number | null, to: number | null) {
  const pages = new Map<string, OracleCounts>();
  const totals: OracleCounts = { human: 0, ai: 0, total: 0 };
  for (const hit of hits) {
    if ((from !== null && hit.at < from) || (to !== null && hit.at >= to)) continue;
    const hitClass = classifyHit({ userAgent: hit.userAgent, path: hit.path }).class;
    if (hitClass !== 'human' && hitClass !== 'ai') continue;
    const page = pages.get(hit.path) ?? { human: 0, ai: 0, total: 0 };
    pages.set(hit.path, page);
    for (const counts of [page, totals]) {
      counts[hitClass]++;
      counts.total++;
    }
  }
  return { totals, views: [...pages].map(([path, counts]) => ({ path, ...counts })) };
}

/**
 * The documented order of /visitors for a sort and order, written independently of the
 * server: a stable sort by path ascending first, then a stable sort by the count alone, so
 * pages with equal counts keep path order in either direction.
 */
export function oracleOrder<Entry extends OracleCounts & { path: string }>(entries: readonly Entry[], sort = 'total', order?: string): Entry[] {
  const direction = order ?? (sort === 'path' ? 'asc' : 'desc');
  const byPath = [...entries].sort((a, b) => (a.path === b.path ? 0 : a.path < b.path ? -1 : 1));
  if (sort === 'path') return direction === 'asc' ? byPath : byPath.reverse();
  const key = sort as keyof OracleCounts;
  return byPath.sort((a, b) => (direction === 'asc' ? a[key] - b[key] : b[key] - a[key]));
}

/** Hits and unique visitors per class, by brute force. */
export function bruteForceClasses(hits: readonly OracleHit[], from: number | null, to: number | null) {
  const classes = new Map<string, { hits: number; visitors: Set<string> }>();
  for (const hit of hits) {
    if ((from !== null && hit.at < from) || (to !== null && hit.at >= to)) continue;
    const hitClass = classifyHit({ userAgent: hit.userAgent, path: hit.path, accept: hit.accept ?? null }).class;
    const entry = classes.get(hitClass) ?? { hits: 0, visitors: new Set<string>() };
    classes.set(hitClass, entry);
    entry.hits++;
    entry.visitors.add(hit.visitor);
  }
  return ['human', 'ai', 'ai-search', 'ai-training', 'bot'].map((name) => ({
    class: name,
    hits: classes.get(name)?.hits ?? 0,
    visitors: classes.get(name)?.visitors.size ?? 0,
  }));
}
