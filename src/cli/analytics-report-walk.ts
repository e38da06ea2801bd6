import { DocwrightError } from '../core/errors.js';
import type { ApiClient } from './api-client.js';
import { withRetries } from './analytics-retry.js';
import { createWalkProgress } from './analytics-walk-progress.js';

/** The API's largest page. */
export const MAX_REPORT_PAGE = 250;

export interface ListQuery {
  projectId: string;
  /** Endpoint under /v1/analytics/{project}/, e.g. `agents`. */
  report: string;
  /** Member of the answer holding the entries. */
  list: string;
  query: Record<string, string | number | undefined>;
  /** Entries wanted at most; Infinity walks every page. */
  want: number;
}

export interface ListAnswer<Entry> {
  /** The first page's other members (dateFrom, dateTo, referralSources…). */
  meta: Record<string, unknown>;
  entries: Entry[];
  /** True when the server has entries beyond those returned. */
  hasMore: boolean;
}

/**
 * Reads a paged report until `want` entries or its end (offset += limit while hasMore),
 * retrying failed reads (reading is idempotent), with progress on stderr when slow.
 */
export async function fetchList<Entry>(client: ApiClient, list: ListQuery): Promise<ListAnswer<Entry>> {
  const path = `/v1/analytics/${encodeURIComponent(list.projectId)}/${list.report}`;
  const progress = createWalkProgress(process.stderr, Date.now, list.report);
  const entries: Entry[] = [];
  let meta: Record<string, unknown> = {};
  let hasMore = false;
  try {
    for (let offset = 0, pages = 0; entries.length < list.want; pages++) {
      const limit = Math.min(MAX_REPORT_PAGE, list.want - entries.length);
      const response = await withRetries(() => client.request<Record<string, unknown>>(path, { query: { ...list.query, limit, offset } }), {
        retries: 4,
        baseDelayMs: 500,
        maxDelayMs: 8000,
      });
      const { [list.list]: page, hasMore: more, ...rest } = response.body;
      if (!Array.isArray(page) || typeof more !== 'boolean') {
        throw new DocwrightError(
          'unexpected_response',
          `The server's ${list.report} answer has no ${list.list} list; is DOCWRIGHT_URL a Docwright server of a matching version?`,
        );
      }
      if (pages === 0) meta = rest;
      entries.push(...(page as Entry[]));
      hasMore = more;
      progress.update(pages + 1, entries.length);
      if (!more) break;
      if (page.length === 0) throw new DocwrightError('unexpected_response', `The server answered hasMore with an empty page at offset ${offset}.`);
      offset += page.length;
    }
  } finally {
    progress.finish();
  }
  return { meta, entries, hasMore };
}
