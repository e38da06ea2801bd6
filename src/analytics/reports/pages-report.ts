import type { AnalyticsReader } from '../analytics-store.js';
import { CATEGORY_CODES, CLASS_CODES, PAGE_KIND, REFERRAL_KIND, UNCATEGORISED } from '../analytics-codes.js';
import type { SortOrder } from '../analytics-types.js';
import type { DimensionNames } from '../dimension-names.js';
import { hitRows } from '../range-counts.js';
import { compareText } from './agents-report.js';
import { inRange, int } from './hit-sql.js';
import { AI_CATEGORIES, type AiCategory, type PageReportEntry, type PagesResult, type PagesSort, type ReferralSource } from './report-types.js';
import type { ReportWindow } from './report-window.js';

/** Referral sources listed at most. */
export const MAX_REFERRAL_SOURCES = 50;

/**
 * An AI reader: a hit of an AI category, or, stored before categories (code 0), of the
 * classes ai, ai-search or ai-training, so a site's history counts before reclassification.
 */
const AI_HIT = `(category in (${AI_CATEGORIES.map((category) => int(CATEGORY_CODES[category])).join(', ')}) or (category = ${int(UNCATEGORISED)} and class in (${[
  CLASS_CODES.ai,
  CLASS_CODES['ai-search'],
  CLASS_CODES['ai-training'],
]
  .map(int)
  .join(', ')})))`;
const HUMAN_HIT = `class = ${int(CLASS_CODES.human)}`;
const REFERRED = `${HUMAN_HIT} and referral is not null`;

type PageRow = { page: number; human: number; ai: number; referrals: number } & Record<`c${number}`, number>;

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
 * Per page: unique human readers, unique AI readers (all AI categories together and per
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
  const answered = { dateFrom: new Date(window.from).toISOString(), dateTo: new Date(window.to).toISOString() };
  if (site === null || window.from >= window.to) return { ...answered, pages: [], hasMore: false, referralSources: [] };
  const range = inRange(site, window.from, window.to);
  const rows = await hitRows<PageRow>(
    reader,
    (sql) => `select page, ${sql.distinctIf('visitor', HUMAN_HIT)} as human, ${sql.distinctIf('visitor', AI_HIT)} as ai,
      ${AI_CATEGORIES.map((category) => `${sql.distinctIf('visitor', `category = ${int(CATEGORY_CODES[category])}`)} as c${CATEGORY_CODES[category]}`).join(', ')}, ${sql.countIf(REFERRED)} as referrals
    from ${sql.hits} where ${range} group by page`,
  );
  const sources = await hitRows<{ referral: number; referrals: number; visitors: number }>(
    reader,
    (sql) => `select referral, ${sql.count()} as referrals, ${sql.distinct('visitor')} as visitors
    from ${sql.hits} where ${range} and ${REFERRED} group by referral`,
  );
  const known = await names.lookup(site, [...rows.map((row) => Number(row.page)), ...sources.map((row) => Number(row.referral))]);
  const pages: PageReportEntry[] = [];
  for (const row of rows) {
    const name = known.get(Number(row.page));
    const humanReaders = Number(row.human);
    const aiReaders = Number(row.ai);
    const aiReferrals = Number(row.referrals);
    if (name?.kind !== PAGE_KIND || humanReaders + aiReaders + aiReferrals === 0) continue;
    const aiReadersByCategory = Object.fromEntries(AI_CATEGORIES.map((category) => [category, Number(row[`c${CATEGORY_CODES[category]}`])])) as Record<
      AiCategory,
      number
    >;
    pages.push({ path: name.name, humanReaders, aiReaders, aiReadersByCategory, aiReferrals, agentSkew: agentSkew(aiReaders, humanReaders) });
  }
  pages.sort(comparator(page.sort, page.order ?? (page.sort === 'path' ? 'asc' : 'desc')));
  const referralSources: ReferralSource[] = [];
  for (const row of sources) {
    const name = known.get(Number(row.referral));
    if (name?.kind !== REFERRAL_KIND) continue;
    referralSources.push({ source: name.name, referrals: Number(row.referrals), visitors: Number(row.visitors) });
  }
  referralSources.sort((a, b) => b.referrals - a.referrals || compareText(a.source, b.source));
  return {
    ...answered,
    pages: pages.slice(page.offset, page.offset + page.limit),
    hasMore: pages.length > page.offset + page.limit,
    referralSources: referralSources.slice(0, MAX_REFERRAL_SOURCES),
  };
}
