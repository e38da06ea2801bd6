import { DocwrightError, validationFailed } from '../../core/errors.js';
import { DAY_MS, dayOf } from '../analytics-codes.js';
import type { AnalyticsService } from '../analytics-service.js';
import type { PageVisitors, TimeRange, VisitorCounts } from '../analytics-types.js';
import { checkedRange } from '../query-range.js';
import type { AgentErrorEntry, AgentReportEntry, PageReportEntry, ReferralSource } from './report-types.js';

/** Entries per list in the summary: short enough to paste into a channel. */
export const SUMMARY_TOP = 5;
export const DEFAULT_SUMMARY_DAYS = 7;
export const MAX_SUMMARY_DAYS = 92;

export interface CountsWithPrevious extends VisitorCounts {
  /** The same counts over the period of equal length just before. */
  previous: VisitorCounts;
}

/** The parts read from raw hits; null when the range reaches before the raw-hit retention. */
export interface AiReadersSummary {
  topAgents: AgentReportEntry[];
  /** Pages with more AI readers than human ones, by agentSkew (AI readers per human reader). */
  agentFavouredPages: PageReportEntry[];
  agentErrors: AgentErrorEntry[];
  /** True when more page/status pairs answered agents with 4xx than are listed. */
  moreAgentErrors: boolean;
  referralSources: ReferralSource[];
}

export interface SummaryResult {
  dateFrom: string;
  dateTo: string;
  previousFrom: string;
  visitors: CountsWithPrevious;
  views: CountsWithPrevious;
  /** Hits of the classes /visitors leaves out. */
  crawlerHits: { 'ai-search': number; 'ai-training': number; bot: number };
  /** Most viewed pages (views: human and ai hits). */
  topPages: PageVisitors[];
  aiReaders: AiReadersSummary | null;
}

/**
 * The weekly summary a docs lead pastes into a channel: by default the last 7 complete UTC
 * days (ending at today's UTC midnight), compared with the 7 days before. With only one
 * bound the other is 7 days away. Built from the other reports, so every number in it
 * is what the corresponding endpoint answers for the same range.
 */
export async function weeklySummary(service: AnalyticsService, projectId: string, range: TimeRange, now: number): Promise<SummaryResult> {
  const checked = checkedRange(range.from, range.to);
  const week = DEFAULT_SUMMARY_DAYS * DAY_MS;
  const to = checked.to ?? (checked.from === null ? dayOf(now) * DAY_MS : checked.from + week);
  const from = checked.from ?? to - week;
  if (to - from > MAX_SUMMARY_DAYS * DAY_MS) {
    throw validationFailed(`The summary spans at most ${MAX_SUMMARY_DAYS} days.`, [
      { path: 'dateFrom', message: `must be at most ${MAX_SUMMARY_DAYS} days before dateTo` },
    ]);
  }
  const previousFrom = from - (to - from);
  const current = { from, to };
  const before = { from: previousFrom, to: from };
  const withPrevious = (now: VisitorCounts, then: VisitorCounts): CountsWithPrevious => ({ ...now, previous: then });
  const [visitors, previousVisitors, views, previousViews, traffic] = await Promise.all([
    service.visitors(projectId, { ...current, limit: 1 }),
    service.visitors(projectId, { ...before, limit: 1 }),
    service.views(projectId, { ...current, limit: SUMMARY_TOP }),
    service.views(projectId, { ...before, limit: 1 }),
    service.traffic(projectId, current),
  ]);
  const crawler = (name: string) => traffic.classes.find((entry) => entry.class === name)?.hits ?? 0;
  return {
    dateFrom: new Date(from).toISOString(),
    dateTo: new Date(to).toISOString(),
    previousFrom: new Date(previousFrom).toISOString(),
    visitors: withPrevious(visitors.totals, previousVisitors.totals),
    views: withPrevious(views.totals, previousViews.totals),
    crawlerHits: { 'ai-search': crawler('ai-search'), 'ai-training': crawler('ai-training'), bot: crawler('bot') },
    topPages: views.views,
    aiReaders: await aiReadersSummary(service, projectId, current),
  };
}

async function aiReadersSummary(service: AnalyticsService, projectId: string, range: { from: number; to: number }): Promise<AiReadersSummary | null> {
  try {
    const [agents, skewed, errors] = await Promise.all([
      service.agents(projectId, { ...range, limit: SUMMARY_TOP }),
      service.pages(projectId, { ...range, sort: 'agentSkew', limit: 250 }),
      service.agentErrors(projectId, { ...range, limit: SUMMARY_TOP }),
    ]);
    return {
      topAgents: agents.agents,
      agentFavouredPages: skewed.pages.filter((page) => page.aiReaders > page.humanReaders).slice(0, SUMMARY_TOP),
      agentErrors: errors.errors,
      moreAgentErrors: errors.hasMore,
      referralSources: skewed.referralSources.slice(0, SUMMARY_TOP),
    };
  } catch (error) {
    // Raw hits before the retention period are gone; the rollup-based parts still stand.
    if (error instanceof DocwrightError && error.code === 'validation_failed') return null;
    throw error;
  }
}
