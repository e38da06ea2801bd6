import { z } from 'zod';
import { HIT_CLASSES } from '../classification/classify-hit.js';
import { HIT_CATEGORIES } from '../classification/hit-category.js';
import { rangeQuerySchema, visitorsQuerySchema, viewTotalsSchema, pageViewsSchema, visitorTotalsSchema } from '../analytics-schemas.js';
import { SORT_ORDERS } from '../analytics-types.js';
import { AI_CATEGORIES, PAGES_SORTS } from './report-types.js';
import { MAX_SUMMARY_DAYS } from './summary-report.js';

const RAW =
  'Read from the raw hits, kept for the retention period (DOCWRIGHT_ANALYTICS_RETENTION_DAYS): an omitted dateFrom starts there, an earlier one is a 400.';

const listQuery = visitorsQuerySchema.pick({ dateFrom: true, dateTo: true, limit: true, offset: true });
export const agentsQuerySchema = listQuery;
export const agentErrorsQuerySchema = listQuery;
export const pagesQuerySchema = listQuery.extend({
  sort: z
    .enum(PAGES_SORTS, { error: `must be one of ${PAGES_SORTS.join(', ')}` })
    .optional()
    .describe('aiReaders (default), humanReaders, aiReferrals, agentSkew or path. Ties by path ascending (agentSkew: by aiReaders first).'),
  order: z
    .enum(SORT_ORDERS, { error: `must be one of ${SORT_ORDERS.join(', ')}` })
    .optional()
    .describe('asc or desc. Default: desc for counts, asc for path.'),
});
export const summaryQuerySchema = rangeQuerySchema;

const answered = {
  dateFrom: z.string().describe('Start of the range answered (ISO 8601).'),
  dateTo: z.string().describe('End of the range answered, exclusive (ISO 8601).'),
  hasMore: z.boolean().describe('True when more entries follow this page.'),
};
const reportCategory = z.enum(['uncategorised', ...HIT_CATEGORIES]);

export const agentEntrySchema = z
  .object({
    agent: z.string().describe('Agent name: ChatGPT, Claude, Cursor, GPTBot, Googlebot…'),
    class: z.enum(HIT_CLASSES as [string, ...string[]]),
    category: reportCategory.describe('The category its hits were stored with; uncategorised: stored before categories and not reclassified yet.'),
    visitors: z.number().int().describe('Unique visitors under this name.'),
    hits: z.number().int(),
    verifiedHits: z.number().int().describe('Hits proven by a Web Bot Auth signature, published address ranges or forward-confirmed reverse DNS.'),
    verifiedShare: z.number().describe('verifiedHits / hits, 0 to 1, 4 decimals.'),
    spoofedHits: z.number().int().describe('Hits stored under this name that failed its operator’s check.'),
    pages: z.number().int().describe('Distinct pages requested.'),
    markdownReads: z.number().int().describe('Markdown reads: a .md URL or an Accept preferring text/markdown.'),
    llmsTxtReads: z.number().int().describe('Requests for /llms.txt.'),
    llmsFullTxtReads: z.number().int().describe('Requests for /llms-full.txt.'),
  })
  .meta({ id: 'AgentReportEntry' });

export const agentsResponseSchema = z
  .object({ ...answered, agents: z.array(agentEntrySchema).describe('Named agents by hits descending, then name, then category.') })
  .meta({ id: 'AgentsReport' });

const byCategory = z.object(Object.fromEntries(AI_CATEGORIES.map((category) => [category, z.number().int()])));
export const pageEntrySchema = z
  .object({
    path: z.string(),
    humanReaders: z.number().int().describe('Unique human visitors.'),
    aiReaders: z.number().int().describe('Unique visitors of any AI category, each counted once.'),
    aiReadersByCategory: byCategory.describe('Unique visitors per AI category, every category listed.'),
    aiReferrals: z.number().int().describe('Human views that arrived from an AI product (referrer or utm_source).'),
    agentSkew: z.number().describe('aiReaders / (humanReaders + 1), 2 decimals: above 1 when agents outnumber people.'),
  })
  .meta({ id: 'PageReportEntry' });
const referralSourceSchema = z.object({
  source: z.string().describe('chatgpt.com, perplexity.ai, claude.ai…'),
  referrals: z.number().int(),
  visitors: z.number().int(),
});

export const pagesResponseSchema = z
  .object({
    ...answered,
    pages: z.array(pageEntrySchema).describe('Pages with a human or AI reader, in the order asked for.'),
    referralSources: z.array(referralSourceSchema).describe('Site-wide AI referrals per source, most first, at most 50.'),
  })
  .meta({ id: 'PagesReport' });

export const agentErrorEntrySchema = z
  .object({
    path: z.string(),
    status: z.number().int().describe('The 4xx status answered.'),
    hits: z.number().int(),
    visitors: z.number().int(),
    agents: z.array(z.string()).describe('Agent names that got it, most hits first, at most 10.'),
  })
  .meta({ id: 'AgentErrorEntry' });

export const agentErrorsResponseSchema = z
  .object({ ...answered, errors: z.array(agentErrorEntrySchema).describe('Page and status pairs by hits descending, then path, then status.') })
  .meta({ id: 'AgentErrorsReport' });

const withPrevious = <Shape extends z.ZodRawShape>(totals: z.ZodObject<Shape>) =>
  totals.extend({ previous: totals.describe('The same counts over the period of equal length just before.') });

export const summaryResponseSchema = z
  .object({
    dateFrom: z.string(),
    dateTo: z.string(),
    previousFrom: z.string().describe('Start of the comparison period, which ends at dateFrom.'),
    visitors: withPrevious(visitorTotalsSchema),
    views: withPrevious(viewTotalsSchema),
    crawlerHits: z.object({ 'ai-search': z.number().int(), 'ai-training': z.number().int(), bot: z.number().int() }),
    topPages: z.array(pageViewsSchema).describe('The 5 most viewed pages.'),
    aiReaders: z
      .object({
        topAgents: z.array(agentEntrySchema),
        agentFavouredPages: z.array(pageEntrySchema).describe('Pages with more AI readers than human ones, by agentSkew, at most 5.'),
        agentErrors: z.array(agentErrorEntrySchema),
        moreAgentErrors: z.boolean(),
        referralSources: z.array(referralSourceSchema),
      })
      .nullable()
      .describe('From the raw hits; null when the range reaches before the raw-hit retention.'),
  })
  .meta({ id: 'AnalyticsSummary' });

export const REPORT_DESCRIPTIONS = {
  agents: `Per named agent (and stored category) in [dateFrom, dateTo): unique visitors, hits, verified hits and share, spoofed hits, distinct pages, Markdown and llms.txt reads. ${RAW}`,
  pages: `Per page: unique human readers, unique AI readers (all AI categories and per category), human views referred by an AI product, and agentSkew (AI readers per human reader, to find pages agents read most but people rarely: sort=agentSkew); plus the site's referral sources. ${RAW}`,
  agentErrors: `Pages that agents (every non-human class) requested and that answered 4xx, per page and status, when the status is known (events' status field, access logs). ${RAW}`,
  summary: `A weekly summary: by default the last 7 complete UTC days, compared with the 7 days before; at most ${MAX_SUMMARY_DAYS} days. Visitors, views, crawler hits, top pages, and from the raw hits top agents, agent-favoured pages, agent 4xx and AI referral sources.`,
};
