import type { HitClass } from '../classification/classify-hit.js';
import type { HitCategory } from '../classification/hit-category.js';

/** A stored category, or `uncategorised` for a hit stored before categories (code 0) and not reclassified yet. */
export type ReportCategory = HitCategory | 'uncategorised';

/** The AI categories, in the order the reports list them. */
export const AI_CATEGORIES = ['ai-assistant', 'ai-agent', 'ai-coding-agent', 'ai-search', 'ai-training', 'ai-other'] as const;
export type AiCategory = (typeof AI_CATEGORIES)[number];

/** The range a raw-hit report answered: ISO 8601, `dateTo` exclusive (open bounds filled in). */
export interface AnsweredRange {
  dateFrom: string;
  dateTo: string;
}

export interface ListPage {
  limit?: number;
  offset?: number;
}

/** One named agent (per category, as it was stored) over the range. */
export interface AgentReportEntry {
  agent: string;
  class: HitClass;
  category: ReportCategory;
  /** Unique visitors (sender ids or address + user-agent hashes) under this agent's name. */
  visitors: number;
  hits: number;
  /** Hits proven by a signature, published ranges or reverse DNS. */
  verifiedHits: number;
  /** verifiedHits / hits, 0 to 1 (4 decimals). */
  verifiedShare: number;
  /** Hits that named this agent and failed its operator's check (kept under the name they claimed only when verify's rule stores them so). */
  spoofedHits: number;
  /** Distinct pages requested. */
  pages: number;
  /** Markdown reads: a `.md` URL or an Accept preferring text/markdown. */
  markdownReads: number;
  /** Requests for /llms.txt. */
  llmsTxtReads: number;
  /** Requests for /llms-full.txt. */
  llmsFullTxtReads: number;
}

export interface AgentsResult extends AnsweredRange {
  agents: AgentReportEntry[];
  hasMore: boolean;
}

export const PAGES_SORTS = ['aiReaders', 'humanReaders', 'aiReferrals', 'agentSkew', 'path'] as const;
export type PagesSort = (typeof PAGES_SORTS)[number];

export interface PageReportEntry {
  path: string;
  /** Unique human visitors. */
  humanReaders: number;
  /** Unique visitors of any AI category (each once). */
  aiReaders: number;
  /** Unique visitors per AI category; every category listed, zeros included. */
  aiReadersByCategory: Record<AiCategory, number>;
  /** Human views that arrived from an AI product (chatgpt.com, perplexity.ai, … or utm_source). */
  aiReferrals: number;
  /** aiReaders / (humanReaders + 1), 2 decimals: how much more agents read the page than people. */
  agentSkew: number;
}

export interface ReferralSource {
  source: string;
  referrals: number;
  visitors: number;
}

export interface PagesResult extends AnsweredRange {
  pages: PageReportEntry[];
  hasMore: boolean;
  /** Site-wide AI referrals per source, most first (at most 50). */
  referralSources: ReferralSource[];
}

export interface AgentErrorEntry {
  path: string;
  status: number;
  hits: number;
  visitors: number;
  /** Agent names that got this answer, most hits first (at most 10). */
  agents: string[];
}

export interface AgentErrorsResult extends AnsweredRange {
  errors: AgentErrorEntry[];
  hasMore: boolean;
}
