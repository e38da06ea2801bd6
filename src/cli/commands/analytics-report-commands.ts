import { Command, Option } from 'commander';
import type { AgentErrorEntry, AgentReportEntry, PageReportEntry } from '../../analytics/reports/report-types.js';
import { PAGES_SORTS } from '../../analytics/reports/report-types.js';
import type { SummaryResult } from '../../analytics/reports/summary-report.js';
import { formatSummary, SUMMARY_STYLES, type SummaryStyle } from '../../analytics/reports/summary-text.js';
import { ApiClient } from '../api-client.js';
import { parseDateOption, type DateOption } from '../analytics-options.js';
import { fetchList } from '../analytics-report-walk.js';
import { printJson, printTable } from '../output.js';
import { parseLimit } from '../parse-options.js';
import { resolveProject, usageError } from './analytics-command-options.js';

const ENVIRONMENT = `
Environment: DOCWRIGHT_URL (default http://127.0.0.1:3000), DOCWRIGHT_API_KEY,
DOCWRIGHT_PROJECT (the default --project). Dates are UTC; --to is exclusive. These reports
read the raw hits, kept for DOCWRIGHT_ANALYTICS_RETENTION_DAYS (default 400): without
--from they start there, and an earlier --from is refused.`;

interface ReportOptions {
  project?: string;
  from?: DateOption;
  to?: DateOption;
  limit: number;
  all?: boolean;
  json?: boolean;
  sort?: string;
  order?: string;
}

/** --project, --from, --to, --limit/--all and --json, shared by the list reports. */
function listCommand(name: string, description: string, help: string): Command {
  return new Command(name)
    .description(description)
    .option('--project <id>', 'project id (default: DOCWRIGHT_PROJECT)')
    .option('--from <date>', 'start: YYYY-MM-DD or an ISO 8601 date-time (default: the raw-hit retention horizon)', (value) => parseDateOption(value, '--from'))
    .option('--to <date>', 'end, exclusive (default: now)', (value) => parseDateOption(value, '--to'))
    .option('--limit <n>', 'rows to show, 1-100000', (value) => parseLimit(value, 100_000, '--limit'), 50)
    .option('--all', 'every row (walks all pages)')
    .option('--json', 'print JSON: the API answer with every row fetched')
    .addHelpText('after', `${help}\n${ENVIRONMENT}`);
}

async function runList<Entry>(report: string, list: string, options: ReportOptions, extra: Record<string, string | undefined> = {}) {
  const { from, to } = options;
  if (from && to && from.instant > to.instant) throw usageError('--from must not be after --to.');
  const projectId = resolveProject(options.project);
  const client = new ApiClient();
  client.headers();
  const query = { dateFrom: from?.text, dateTo: to?.text, ...extra };
  return fetchList<Entry>(client, { projectId, report, list, query, want: options.all ? Number.POSITIVE_INFINITY : options.limit });
}

const number = (value: number): string => value.toLocaleString('en-US');
const more = (hasMore: boolean, command: string): void => {
  if (hasMore) process.stdout.write(`… more rows: ${command} --all (or a larger --limit)\n`);
};

/**
 * The per-agent report. It is `report`, the default subcommand of `analytics agents` (which
 * also holds `update` and `ranges`), so `docwright analytics agents --json` runs it.
 */
export function agentsReportCommand(): Command {
  return listCommand(
    'report',
    'Per AI agent: visitors, hits, verified share, pages read, Markdown and llms.txt reads.',
    `
One row per named agent (and the category its hits were stored with), most hits first:
VERIFIED is the share of hits proven by a signature, published ranges or reverse DNS;
MD and LLMS count Markdown reads and /llms.txt + /llms-full.txt requests.

Examples:
  docwright analytics agents --project prj_123 --from 2026-11-01
  docwright analytics agents report --project prj_123   (the same; report is the default)
  docwright analytics agents --project prj_123 --all --json > agents.json`,
  ).action(async (options: ReportOptions) => {
    const answer = await runList<AgentReportEntry>('agents', 'agents', options);
    if (options.json) return printJson({ ...answer.meta, agents: answer.entries, hasMore: answer.hasMore });
    printTable(
      ['AGENT', 'CATEGORY', 'HITS', 'VISITORS', 'VERIFIED', 'SPOOFED', 'PAGES', 'MD', 'LLMS'],
      answer.entries.map((agent) => [
        agent.agent,
        agent.category,
        number(agent.hits),
        number(agent.visitors),
        `${(agent.verifiedShare * 100).toFixed(1)}%`,
        number(agent.spoofedHits),
        number(agent.pages),
        number(agent.markdownReads),
        number(agent.llmsTxtReads + agent.llmsFullTxtReads),
      ]),
    );
    more(answer.hasMore, 'docwright analytics agents');
  });
}

function pagesCommand(): Command {
  return listCommand(
    'pages',
    'Per page: human readers, AI readers by category, AI referrals; --sort agentSkew for pages agents read most but people rarely.',
    `
AI is every AI category together (each reader once); ASSIST, AGENT, CODING, SEARCH,
TRAINING and OTHER are the readers per category. REFERRALS counts human views that came
from an AI product (chatgpt.com, perplexity.ai, …). SKEW = AI readers / (human readers + 1):
--sort agentSkew lists the pages agents read most but people rarely first.

Examples:
  docwright analytics pages --project prj_123 --sort agentSkew --limit 20
  docwright analytics pages --project prj_123 --sort aiReferrals --json`,
  )
    .addOption(new Option('--sort <field>', 'ranking').choices([...PAGES_SORTS]).default('aiReaders'))
    .addOption(new Option('--order <order>', 'asc or desc (default: desc, asc for path)').choices(['asc', 'desc']))
    .action(async (options: ReportOptions) => {
      const answer = await runList<PageReportEntry>('pages', 'pages', options, { sort: options.sort, order: options.order });
      if (options.json) return printJson({ ...answer.meta, pages: answer.entries, hasMore: answer.hasMore });
      printTable(
        ['PATH', 'HUMAN', 'AI', 'ASSIST', 'AGENT', 'CODING', 'SEARCH', 'TRAINING', 'OTHER', 'REFERRALS', 'SKEW'],
        answer.entries.map((page) => {
          const c = page.aiReadersByCategory;
          const counts = [c['ai-assistant'], c['ai-agent'], c['ai-coding-agent'], c['ai-search'], c['ai-training'], c['ai-other']].map(number);
          return [page.path, number(page.humanReaders), number(page.aiReaders), ...counts, number(page.aiReferrals), page.agentSkew.toFixed(2)];
        }),
      );
      more(answer.hasMore, 'docwright analytics pages');
    });
}

function agentErrorsCommand(): Command {
  return listCommand(
    'agent-errors',
    'Pages that agents requested and that answered 4xx (status from events or access logs).',
    `
One row per page and status, most hits first, with the agents that got it. Only hits
whose status is known count: events that carry "status", and imported access logs.

Example:
  docwright analytics agent-errors --project prj_123 --from 2026-11-17`,
  ).action(async (options: ReportOptions) => {
    const answer = await runList<AgentErrorEntry>('agent-errors', 'errors', options);
    if (options.json) return printJson({ ...answer.meta, errors: answer.entries, hasMore: answer.hasMore });
    if (answer.entries.length === 0) return void process.stdout.write('No page answered an agent with 4xx in this range.\n');
    printTable(
      ['STATUS', 'HITS', 'VISITORS', 'PATH', 'AGENTS'],
      answer.entries.map((error) => [error.status, number(error.hits), number(error.visitors), error.path, error.agents.join(', ')]),
    );
    more(answer.hasMore, 'docwright analytics agent-errors');
  });
}

interface SummaryOptions {
  project?: string;
  from?: DateOption;
  to?: DateOption;
  format: SummaryStyle;
  json?: boolean;
}

function summaryCommand(): Command {
  return new Command('summary')
    .description('A weekly summary to paste into a channel: readers, views, AI agents, pages agents favour, agent 4xx, AI referrals.')
    .option('--project <id>', 'project id (default: DOCWRIGHT_PROJECT)')
    .option('--from <date>', 'start (default: 7 days before --to)', (value) => parseDateOption(value, '--from'))
    .option('--to <date>', 'end, exclusive (default: today 00:00 UTC, so the last 7 complete days)', (value) => parseDateOption(value, '--to'))
    .addOption(new Option('--format <style>', 'markdown (GitHub, Notion, Teams), slack (mrkdwn) or text').choices([...SUMMARY_STYLES]).default('markdown'))
    .option('--json', 'print the API answer (GET /v1/analytics/{project}/summary)')
    .addHelpText(
      'after',
      `
Compares with the period of the same length just before. With only --from or --to, the
range is 7 days from or before it; at most 92 days.

Examples:
  docwright analytics summary --project prj_123 | pbcopy
  docwright analytics summary --project prj_123 --format slack --from 2026-11-16

Environment: DOCWRIGHT_URL (default http://127.0.0.1:3000), DOCWRIGHT_API_KEY,
DOCWRIGHT_PROJECT (the default --project). The AI agent sections read the raw hits, kept
for DOCWRIGHT_ANALYTICS_RETENTION_DAYS (default 400): for older ranges they are left out.`,
    )
    .action(async (options: SummaryOptions) => {
      const { from, to } = options;
      if (from && to && from.instant > to.instant) throw usageError('--from must not be after --to.');
      const projectId = resolveProject(options.project);
      const client = new ApiClient();
      client.headers();
      const query = { dateFrom: from?.text, dateTo: to?.text };
      const { body } = await client.request<SummaryResult>(`/v1/analytics/${encodeURIComponent(projectId)}/summary`, { query });
      if (options.json) return printJson(body);
      process.stdout.write(formatSummary(body, projectId, options.format));
    });
}

/** The reports on AI readers, beside `visitors`, `views` and `import`. */
export function reportCommands(): Command[] {
  return [pagesCommand(), agentErrorsCommand(), summaryCommand()];
}
