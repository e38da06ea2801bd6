import type { AnalyticsReader } from '../analytics-store.js';
import { PAGE_KIND } from '../analytics-codes.js';
import type { DimensionNames } from '../dimension-names.js';
import { hitRows } from '../range-counts.js';
import { compareText, NOT_HUMAN } from './agents-report.js';
import { inRange, type HitSql } from './hit-sql.js';
import type { AgentErrorEntry, AgentErrorsResult } from './report-types.js';
import { answeredRange, isEmptyWindow, type ReportWindow } from './report-window.js';

/** Agent names listed per page and status at most. */
export const MAX_ERROR_AGENTS = 10;

/** A request by anything but a person that was answered 4xx (the status is known only when the sender or the log gave it). */
const AGENT_4XX = `${NOT_HUMAN} and status >= 400 and status < 500`;

/**
 * Pages that agents (every non-human class: assistants, agents, crawlers, bots) requested
 * and that answered 4xx, per page and status: hits, unique visitors and the agents' names.
 * Ordered by hits descending, then path, then status; hasMore is exact.
 */
export async function agentErrorsReport(
  reader: AnalyticsReader,
  names: DimensionNames,
  site: number | null,
  window: ReportWindow,
  page: { limit: number; offset: number },
): Promise<AgentErrorsResult> {
  const answered = answeredRange(window);
  if (site === null || isEmptyWindow(window)) return { ...answered, errors: [], hasMore: false };
  const where = (sql: HitSql) => `${inRange(sql, site, window.from, window.to)} and ${AGENT_4XX}`;
  const totals = await hitRows<{ page: number; status: number; hits: number; visitors: number }>(
    reader,
    site,
    (sql) => `select page, status, ${sql.count()} as hits, ${sql.distinct('visitor')} as visitors from ${sql.hits} where ${where(sql)} group by page, status`,
  );
  const perAgent = await hitRows<{ page: number; status: number; agent: number; hits: number }>(
    reader,
    site,
    (sql) =>
      `select page, status, agent, ${sql.count()} as hits from ${sql.hits} where ${where(sql)} and agent is not null and agent != 0 group by page, status, agent`,
  );
  const known = await names.lookup(site, [...totals.map((row) => Number(row.page)), ...perAgent.map((row) => Number(row.agent))]);
  const agentsOf = new Map<string, Map<string, number>>();
  for (const row of perAgent) {
    const name = known.get(Number(row.agent));
    if (name === undefined) continue;
    const key = `${Number(row.page)}:${Number(row.status)}`;
    const agents = agentsOf.get(key) ?? new Map<string, number>();
    agentsOf.set(key, agents);
    // One name may be stored under several classes (a bot fetching Markdown is an ai row): one entry.
    agents.set(name.name, (agents.get(name.name) ?? 0) + Number(row.hits));
  }
  const errors: AgentErrorEntry[] = [];
  for (const row of totals) {
    const name = known.get(Number(row.page));
    if (name?.kind !== PAGE_KIND) continue;
    const agents = [...(agentsOf.get(`${Number(row.page)}:${Number(row.status)}`) ?? new Map<string, number>())]
      .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
      .slice(0, MAX_ERROR_AGENTS)
      .map(([agent]) => agent);
    errors.push({ path: name.name, status: Number(row.status), hits: Number(row.hits), visitors: Number(row.visitors), agents });
  }
  errors.sort((a, b) => b.hits - a.hits || compareText(a.path, b.path) || a.status - b.status);
  return { ...answered, errors: errors.slice(page.offset, page.offset + page.limit), hasMore: errors.length > page.offset + page.limit };
}
