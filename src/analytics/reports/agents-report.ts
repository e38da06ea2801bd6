import type { AnalyticsReader } from '../analytics-store.js';
import { AGENT_KIND_BASE, CATEGORY_BY_CODE, CLASS_BY_CODE, CLASS_CODES, READ_KIND_CODES, VERIFICATION_CODES } from '../analytics-codes.js';
import type { DimensionNames } from '../dimension-names.js';
import { hitRows } from '../range-counts.js';
import { inRange, int } from './hit-sql.js';
import type { AgentReportEntry, AgentsResult, ReportCategory } from './report-types.js';
import { answeredRange, isEmptyWindow, type ReportWindow } from './report-window.js';

interface AgentRow {
  agent: number;
  category: number;
  visitors: number;
  hits: number;
  verified: number;
  spoofed: number;
  pages: number;
  markdown: number;
  llms: number;
  llmsFull: number;
}

/**
 * Hits of every class but human, written so the partial index of the page-views migration
 * (site, at) where class != 1 serves them: agents are never humans.
 */
export const NOT_HUMAN = `class != ${int(CLASS_CODES.human)}`;

export const categoryName = (code: number): ReportCategory => CATEGORY_BY_CODE.get(code) ?? 'uncategorised';

/** verifiedHits / hits with 4 decimals; 0 for no hits. */
const share = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

/**
 * Per named agent (and category as stored): visitors, hits, how many were verified or
 * spoofed, distinct pages, and Markdown and llms.txt reads, from the raw hits of the
 * range. Ordered by hits descending, then agent name, then category, so offsets walk a
 * fixed order; hasMore is exact.
 */
export async function agentsReport(
  reader: AnalyticsReader,
  names: DimensionNames,
  site: number | null,
  window: ReportWindow,
  page: { limit: number; offset: number },
): Promise<AgentsResult> {
  const answered = answeredRange(window);
  if (site === null || isEmptyWindow(window)) return { ...answered, agents: [], hasMore: false };
  const rows = await hitRows<AgentRow>(
    reader,
    site,
    (sql) => `select agent, category, ${sql.distinct('visitor')} as visitors, ${sql.count()} as hits,
      ${sql.countIf(`verification = ${int(VERIFICATION_CODES.verified)}`)} as verified,
      ${sql.countIf(`verification = ${int(VERIFICATION_CODES.spoofed)}`)} as spoofed,
      ${sql.distinct('page')} as pages,
      ${sql.countIf(`read_kind = ${int(READ_KIND_CODES.markdown)}`)} as markdown,
      ${sql.countIf(`read_kind = ${int(READ_KIND_CODES['llms-txt'])}`)} as llms,
      ${sql.countIf(`read_kind = ${int(READ_KIND_CODES['llms-full-txt'])}`)} as "llmsFull"
    from ${sql.hits} where ${inRange(sql, site, window.from, window.to)} and ${NOT_HUMAN} and agent is not null and agent != 0
    group by agent, category`,
  );
  const known = await names.lookup(
    site,
    rows.map((row) => Number(row.agent)),
  );
  const agents: AgentReportEntry[] = [];
  for (const row of rows) {
    const name = known.get(Number(row.agent));
    const hitClass = name === undefined ? undefined : CLASS_BY_CODE.get(name.kind - AGENT_KIND_BASE);
    if (name === undefined || hitClass === undefined) continue;
    const hits = Number(row.hits);
    const verifiedHits = Number(row.verified);
    agents.push({
      agent: name.name,
      class: hitClass,
      category: categoryName(Number(row.category)),
      visitors: Number(row.visitors),
      hits,
      verifiedHits,
      verifiedShare: share(verifiedHits, hits),
      spoofedHits: Number(row.spoofed),
      pages: Number(row.pages),
      markdownReads: Number(row.markdown),
      llmsTxtReads: Number(row.llms),
      llmsFullTxtReads: Number(row.llmsFull),
    });
  }
  agents.sort((a, b) => b.hits - a.hits || compareText(a.agent, b.agent) || compareText(a.category, b.category) || compareText(a.class, b.class));
  return { ...answered, agents: agents.slice(page.offset, page.offset + page.limit), hasMore: agents.length > page.offset + page.limit };
}

/** UTF-16 code unit order, the same in every locale (as /visitors orders paths). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
