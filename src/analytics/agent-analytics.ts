import type { Clock } from '../core/clock.js';
import type { Config } from '../config/load-config.js';
import type { Database } from '../db/database.js';
import type { ProjectSettings } from '../projects/project.js';
import type { AgentAnalyticsSource, AnalyticsPageRow, AnalyticsToolAnswer, AnalyticsToolQuery, ProjectAnalytics } from '../agent/tools/analytics-tool.js';
import { AnalyticsService } from './analytics-service.js';
import type { PageReportEntry, PagesSort } from './reports/report-types.js';

/** Rows of the pages report read per request while looking for pages no human read. */
const SCAN_PAGE_ROWS = 250;
/** At most this many report pages are scanned for agent_only_pages (1,000 pages by agent skew). */
const SCAN_PAGES = 4;

export interface AgentAnalytics {
  source: AgentAnalyticsSource;
  /**
   * Answers from the process's own analytics service (the API's, in `serve`) instead of
   * building a second one with its own report threads. The returned function gives it
   * back, before that service closes.
   */
  share(service: AnalyticsService): () => void;
  /** The service tool calls read now: the shared one, the own one they started, or null. */
  readonly reports: AnalyticsService | null;
  /** Stops the report service it built, if a tool call ever started one (a shared one is its owner's to close). */
  close(): Promise<void>;
}

export interface AgentAnalyticsOptions {
  config: Config;
  database: Database;
  clock: Clock;
  projectSettings: (projectId: string) => Promise<ProjectSettings | null>;
}

const pageRow = (entry: PageReportEntry): AnalyticsPageRow => ({
  path: entry.path,
  humanReaders: entry.humanReaders,
  aiReaders: entry.aiReaders,
  agentSkew: entry.agentSkew,
});

async function topPages(service: AnalyticsService, projectId: string, query: AnalyticsToolQuery, sort: PagesSort): Promise<AnalyticsToolAnswer> {
  const result = await service.pages(projectId, { from: query.from, to: query.to, limit: query.limit, offset: 0, sort, order: 'desc' });
  return { dateFrom: result.dateFrom, dateTo: result.dateTo, rows: result.pages.map(pageRow), hasMore: result.hasMore };
}

/**
 * Pages with AI readers and no human one. The pages report ranks by agent skew, which puts
 * them first among pages of equal AI readership but not overall, so the report is walked
 * (bounded) and the rows sorted by AI readers.
 */
async function agentOnlyPages(service: AnalyticsService, projectId: string, query: AnalyticsToolQuery): Promise<AnalyticsToolAnswer> {
  const found: AnalyticsPageRow[] = [];
  let range = { dateFrom: new Date(query.from).toISOString(), dateTo: new Date(query.to).toISOString() };
  let hasMore = false;
  for (let page = 0; page < SCAN_PAGES; page += 1) {
    const result = await service.pages(projectId, {
      from: query.from,
      to: query.to,
      limit: SCAN_PAGE_ROWS,
      offset: page * SCAN_PAGE_ROWS,
      sort: 'agentSkew',
      order: 'desc',
    });
    range = { dateFrom: result.dateFrom, dateTo: result.dateTo };
    for (const entry of result.pages) if (entry.humanReaders === 0 && entry.aiReaders > 0) found.push(pageRow(entry));
    hasMore = result.hasMore;
    if (!result.hasMore) break;
  }
  found.sort((a, b) => b.aiReaders - a.aiReaders || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ...range, rows: found.slice(0, query.limit), hasMore: hasMore || found.length > query.limit };
}

async function agentErrors(service: AnalyticsService, projectId: string, query: AnalyticsToolQuery): Promise<AnalyticsToolAnswer> {
  const result = await service.agentErrors(projectId, { from: query.from, to: query.to, limit: query.limit, offset: 0 });
  return {
    dateFrom: result.dateFrom,
    dateTo: result.dateTo,
    rows: result.errors.map((entry) => ({ path: entry.path, status: entry.status, hits: entry.hits, visitors: entry.visitors, agents: entry.agents })),
    hasMore: result.hasMore,
  };
}

/**
 * The agent's analytics port, implemented by the analytics reports. In a process that
 * serves the API, the API's AnalyticsService is shared (`share`, called by the analytics
 * routes): one set of report threads per process. A worker-only process builds its own
 * read-only one (no ingest threads, no verification) on the first tool call, so a worker
 * whose agents never ask costs nothing; it reads the same store as the API.
 */
export function createAgentAnalytics(options: AgentAnalyticsOptions): AgentAnalytics {
  let service: AnalyticsService | null = null;
  let shared: AnalyticsService | null = null;
  const started = (): AnalyticsService =>
    shared ??
    (service ??= new AnalyticsService({
      database: options.database,
      clock: options.clock,
      secret: options.config.secret,
      retentionDays: options.config.analytics.retentionDays,
      clickhouse: options.config.analytics.clickhouse,
      projectSettings: options.projectSettings,
      ingestWorkers: 0,
    }));
  const bind = (projectId: string): ProjectAnalytics => ({
    query: (query) => {
      const reports = started();
      switch (query.report) {
        case 'top_pages_ai':
          return topPages(reports, projectId, query, 'aiReaders');
        case 'top_pages_human':
          return topPages(reports, projectId, query, 'humanReaders');
        case 'agent_only_pages':
          return agentOnlyPages(reports, projectId, query);
        case 'agent_errors':
          return agentErrors(reports, projectId, query);
      }
    },
  });
  return {
    source: bind,
    share(reports) {
      shared = reports;
      // One built before the API's existed is not needed any more.
      const own = service;
      service = null;
      void own?.close();
      return () => {
        if (shared === reports) shared = null;
      };
    },
    get reports() {
      return shared ?? service;
    },
    async close() {
      const running = service;
      service = null;
      await running?.close();
    },
  };
}
