import type { AnalyticsReader } from '../analytics-store.js';
import { CATEGORY_CODES, CLASS_CODES, HUMAN_GROUP, PAGE_KIND, REFERRAL_KIND, SITE_DIMENSION, UNCATEGORISED } from '../analytics-codes.js';
import { planRange } from '../range-plan.js';
import type { SortOrder } from '../analytics-types.js';
import type { DimensionNames } from '../dimension-names.js';
import { hitRows, visitorCounts } from '../range-counts.js';
import { compareText, NOT_HUMAN } from './agents-report.js';
import { inRange, int, type HitSql } from './hit-sql.js';
import { AI_CATEGORIES, type AiCategory, type PageReportEntry, type PagesResult, type PagesSort, type ReferralSource } from './report-types.js';
import { answeredRange, isEmptyWindow, type ReportWindow } from './report-window.js';

/** Referral sources listed at most. */
export const MAX_REFERRAL_SOURCES = 50;

/**
 * An AI reader (among non-human hits): a hit of an AI category, or, stored before categories (code 0), of the
 * classes ai, ai-search or ai-training, so a site's history counts before reclassification.
 */
const AI_HIT = `(category in (${AI_CATEGORIES.map((category) => int(CATEGORY_CODES[category])).join(', ')}) or (category = ${int(UNCATEGORISED)} and class in (${[
  CLASS_CODES.ai,
  CLASS_CODES['ai-search'],
  CLASS_CODES['ai-training'],
]
  .map(int)
  .join(', ')})))`;
/** A person who came from an AI product; `referral is not null` first, as the partial index of the page-views migration reads. */
const REFERRED = `referral is not null and class = ${int(CLASS_CODES.human)}`;

type AiRow = { page: number; ai: number } & Record<`c${number}`, number>;

/** aiReaders / (humanReaders + 1), 2 decimals. The +1 keeps a page no person read finite and ranks more agents higher. */
export const agentSkew = (aiReaders: number, humanReaders: number): number => Math.round((aiReaders / (humanReaders + 1)) * 100) / 100;

/** Counts rank descending unless asked otherwise; a path list reads best A to Z. */
function comparator(sort: PagesSort, order: SortOrder): (a: PageReportEntry, b: PageReportEntry) => number {
  if (sort === 'path') return order === 'asc' ? (a, b) => compareText(a.path, b.path) : (a, b) => compareText(b.path, a.path);
  const sign = order === 'desc' ? -1 : 1;
  // agentSkew ties (often 0) go to the page more agents read, then by path.
  return (a, b) => sign * (a[sort] - b[sort]) || (sort === 'agentSkew' ? b.aiReaders - a.aiReaders : 0) || compareText(a.path, b.path);
}

/**
 * Per page: unique human readers (as /visitors counts them), unique AI readers (all AI categories together and per
 * category) and the human views referred by an AI product; with `agentSkew` (AI readers
 * per human reader) to find the pages agents read most but people rarely. Pages with no
 * human or AI reader (crawled by bots only) are left out. Also the site's referral
 * sources. Read from the raw hits of the range.
 */
export async function pagesReport(
  reader: AnalyticsReader,
  names: DimensionNames,
  site: number | null,
  window: ReportWindow,
  page: { limit: number; offset: number; sort: PagesSort; order: SortOrder | undefined },
): Promise<PagesResult> {
  const answered = answeredRange(window);
  if (site === null || isEmptyWindow(window)) return { ...answered, pages: [], hasMore: false, referralSources: [] };
  const range = (sql: HitSql) => inRange(sql, site, window.from, window.to);
  // Human readers come from the visitor rollups (the /visitors human count of each page);
  // only the AI hits and the referred ones are read raw, each through a partial index.
  const humans = new Map<number, number>();
  for (const row of await visitorCounts(reader, site, planRange(window.from, window.to), 'visitors')) {
    if (row.grp === HUMAN_GROUP && row.dim !== SITE_DIMENSION) humans.set(row.dim, row.visitors);
  }
  const aiRows = await hitRows<AiRow>(
    reader,
    site,
    (sql) => `select page, ${sql.distinctIf('visitor', AI_HIT)} as ai,
      ${AI_CATEGORIES.map((category) => `${sql.distinctIf('visitor', `category = ${int(CATEGORY_CODES[category])}`)} as c${CATEGORY_CODES[category]}`).join(', ')}
    from ${sql.hits} where ${range(sql)} and ${NOT_HUMAN} group by page`,
  );
  const referred = await hitRows<{ page: number; referral: number; referrals: number }>(
    reader,
    site,
    (sql) => `select page, referral, ${sql.count()} as referrals from ${sql.hits} where ${range(sql)} and ${REFERRED} group by page, referral`,
  );
  const sources = await hitRows<{ referral: number; visitors: number }>(
    reader,
    site,
    (sql) => `select referral, ${sql.distinct('visitor')} as visitors from ${sql.hits} where ${range(sql)} and ${REFERRED} group by referral`,
  );
  const perPage = new Map<number, { ai?: AiRow; referrals: number }>();
  const entry = (dim: number) => perPage.get(dim) ?? perPage.set(dim, { referrals: 0 }).get(dim)!;
  for (const row of aiRows) entry(Number(row.page)).ai = row;
  const referralsBySource = new Map<number, number>();
  for (const row of referred) {
    entry(Number(row.page)).referrals += Number(row.referrals);
    referralsBySource.set(Number(row.referral), (referralsBySource.get(Number(row.referral)) ?? 0) + Number(row.referrals));
  }
  for (const dim of humans.keys()) entry(dim);
  const known = await names.lookup(site, [...perPage.keys(), ...referralsBySource.keys()]);
  const pages: PageReportEntry[] = [];
  for (const [dim, counts] of perPage) {
    const name = known.get(dim);
    const humanReaders = humans.get(dim) ?? 0;
    const aiReaders = Number(counts.ai?.ai ?? 0);
    if (name?.kind !== PAGE_KIND || humanReaders + aiReaders + counts.referrals === 0) continue;
    const aiReadersByCategory = Object.fromEntries(
      AI_CATEGORIES.map((category) => [category, Number(counts.ai?.[`c${CATEGORY_CODES[category]}`] ?? 0)]),
    ) as Record<AiCategory, number>;
    pages.push({ path: name.name, humanReaders, aiReaders, aiReadersByCategory, aiReferrals: counts.referrals, agentSkew: agentSkew(aiReaders, humanReaders) });
  }
  pages.sort(comparator(page.sort, page.order ?? (page.sort === 'path' ? 'asc' : 'desc')));
  const referralSources: ReferralSource[] = [];
  for (const row of sources) {
    const name = known.get(Number(row.referral));
    if (name?.kind !== REFERRAL_KIND) continue;
    referralSources.push({ source: name.name, referrals: referralsBySource.get(Number(row.referral)) ?? 0, visitors: Number(row.visitors) });
  }
  referralSources.sort((a, b) => b.referrals - a.referrals || compareText(a.source, b.source));
  return {
    ...answered,
    pages: pages.slice(page.offset, page.offset + page.limit),
    hasMore: pages.length > page.offset + page.limit,
    referralSources: referralSources.slice(0, MAX_REFERRAL_SOURCES),
  };
}
