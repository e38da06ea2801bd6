import { DocwrightError } from '../core/errors.js';

/** The analytics API shapes the CLI reads, checked on arrival so a mismatched server fails with a clear message. */
export interface VisitorCounts {
  human: number;
  ai: number;
  total: number;
}

export interface PageVisitors extends VisitorCounts {
  path: string;
}

export interface VisitorsPage {
  totals: VisitorCounts;
  visitors: PageVisitors[];
  hasMore: boolean;
}

export interface EventRejection {
  index: number;
  code: string;
  message: string;
}

export interface EventsAccepted {
  accepted: number;
  rejected: EventRejection[];
}

/** The two per-page count lists: unique visitors, and views (hits). */
export type PageCountsReport = 'visitors' | 'views';

/**
 * A page of /visitors or /views. Both have the same shape under their own list name; the
 * entries come back under `visitors` either way, so the walk and the writers serve both.
 */
export function parseVisitorsPage(body: unknown, report: PageCountsReport = 'visitors'): VisitorsPage {
  const page = body as (Partial<VisitorsPage> & Partial<Record<PageCountsReport, unknown>>) | null;
  const entries = page?.[report] as PageVisitors[] | undefined;
  if (
    typeof page !== 'object' ||
    page === null ||
    !isCounts(page.totals) ||
    !Array.isArray(entries) ||
    typeof page.hasMore !== 'boolean' ||
    !entries.every((entry) => isCounts(entry) && typeof entry.path === 'string')
  ) {
    throw unexpected(report, `{ totals, ${report}, hasMore }`);
  }
  return { totals: page.totals, visitors: entries, hasMore: page.hasMore };
}

export function parseEventsAccepted(body: unknown, sent: number): EventsAccepted {
  const answer = body as Partial<EventsAccepted> | null;
  if (
    typeof answer !== 'object' ||
    answer === null ||
    !isCount(answer.accepted) ||
    !Array.isArray(answer.rejected) ||
    answer.accepted + answer.rejected.length > sent
  ) {
    throw unexpected('events', `{ accepted, rejected: [...] } for at most ${sent} events`);
  }
  const rejected = answer.rejected.map((item: Partial<EventRejection> | null) => ({
    index: isCount(item?.index) ? item.index : -1,
    code: typeof item?.code === 'string' ? item.code : 'rejected',
    message: typeof item?.message === 'string' ? item.message : '',
  }));
  return { accepted: answer.accepted, rejected };
}

function isCounts(value: unknown): value is VisitorCounts {
  const counts = value as Partial<VisitorCounts> | null;
  return typeof counts === 'object' && counts !== null && isCount(counts.human) && isCount(counts.ai) && isCount(counts.total);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function unexpected(endpoint: string, expected: string): DocwrightError {
  return new DocwrightError(
    'unexpected_response',
    `The server's ${endpoint} answer is not ${expected}; is DOCWRIGHT_URL a Docwright server of a matching version?`,
  );
}
