import { DocwrightError } from '../core/errors.js';
import type { ApiClient } from './api-client.js';
import { parseVisitorsPage, type PageCountsReport, type VisitorsPage } from './analytics-api-types.js';
import { withRetries, type RetryOptions } from './analytics-retry.js';

export interface VisitorsQuery {
  projectId: string;
  dateFrom?: string;
  dateTo?: string;
  /** The API's `limit`, 1 to 250. */
  pageSize: number;
  /** Which list: unique visitors (default) or views. */
  report?: PageCountsReport;
}

export interface WalkedPage extends VisitorsPage {
  offset: number;
}

/** Reading is idempotent, so a long walk should survive a server restart or a dropped connection. */
const READ_RETRIES: Omit<RetryOptions, 'signal' | 'onRetry'> = { retries: 4, baseDelayMs: 500, maxDelayMs: 8000 };

/**
 * Every page of the visitors (or views) endpoint, in order: offset grows by the page size while the
 * server says `hasMore`, exactly as interface.md prescribes for offset pagination.
 */
export async function* walkVisitorPages(client: ApiClient, query: VisitorsQuery, retry: Partial<RetryOptions> = {}): AsyncGenerator<WalkedPage> {
  const report = query.report ?? 'visitors';
  const path = `/v1/analytics/${encodeURIComponent(query.projectId)}/${report}`;
  for (let offset = 0; ; offset += query.pageSize) {
    const response = await withRetries(
      () =>
        client.request<unknown>(path, {
          query: { dateFrom: query.dateFrom, dateTo: query.dateTo, limit: query.pageSize, offset },
        }),
      { ...READ_RETRIES, ...retry },
    );
    const page = parseVisitorsPage(response.body, report);
    yield { ...page, offset };
    if (!page.hasMore) return;
    // A server that claims more but sends nothing would keep this loop going forever.
    if (page.visitors.length === 0) {
      throw new DocwrightError('unexpected_response', `The server answered hasMore with an empty page at offset ${offset}.`);
    }
  }
}
