import type { VisitorCounts } from '../analytics-types.js';
import type { CountsWithPrevious, SummaryResult } from './summary-report.js';

/**
 * How the summary is written for pasting: `markdown` (GitHub, Notion, Teams: **bold**,
 * `-` bullets), `slack` (Slack's mrkdwn: *bold*, • bullets) or `text` (no markup).
 */
export const SUMMARY_STYLES = ['markdown', 'slack', 'text'] as const;
export type SummaryStyle = (typeof SUMMARY_STYLES)[number];

const number = (value: number): string => value.toLocaleString('en-US');
/** "1 hit", "2 hits". */
const count = (value: number, noun: string): string => `${number(value)} ${value === 1 ? noun : `${noun}s`}`;
const day = (iso: string): string => iso.slice(0, 10);
/** The last day inside an exclusive end at midnight; a date-time end is shown as given. */
const lastDay = (iso: string): string => (iso.endsWith('T00:00:00.000Z') ? day(new Date(Date.parse(iso) - 1).toISOString()) : iso);

/** "+12% vs the week before", "new", or "no change". */
function change(now: number, then: number): string {
  if (then === 0) return now === 0 ? 'no change' : 'new';
  const percent = Math.round(((now - then) / then) * 100);
  return percent === 0 ? 'no change' : `${percent > 0 ? '+' : ''}${percent}%`;
}

function countsLine(counts: CountsWithPrevious, what: string): string {
  const split = (value: VisitorCounts) => `${number(value.human)} human, ${number(value.ai)} AI`;
  return `${number(counts.total)} ${what} (${split(counts)}; ${change(counts.total, counts.previous.total)} vs ${number(counts.previous.total)} the period before)`;
}

/** The summary as pasteable text, in the style asked for. Every number is the API's. */
export function formatSummary(summary: SummaryResult, projectId: string, style: SummaryStyle = 'markdown'): string {
  const bold = (text: string) => (style === 'markdown' ? `**${text}**` : style === 'slack' ? `*${text}*` : text);
  const code = (text: string) => (style === 'text' ? text : `\`${text}\``);
  const bullet = style === 'slack' ? '•' : '-';
  const lines: string[] = [];
  const section = (title: string, items: string[], empty: string) => {
    lines.push('', bold(title));
    for (const item of items.length > 0 ? items : [empty]) lines.push(`${bullet} ${item}`);
  };
  lines.push(`${bold(`Docs readers, ${day(summary.dateFrom)} to ${lastDay(summary.dateTo)} (UTC)`)} · project ${code(projectId)}`);
  lines.push(`${bullet} ${countsLine(summary.visitors, 'unique visitors')}`);
  lines.push(`${bullet} ${countsLine(summary.views, 'page views')}`);
  const crawlers = summary.crawlerHits;
  lines.push(
    `${bullet} Crawlers: ${number(crawlers['ai-search'])} AI search, ${number(crawlers['ai-training'])} AI training, ${number(crawlers.bot)} other bot hits`,
  );
  section(
    'Most viewed pages',
    summary.topPages.map((page) => `${code(page.path)}: ${count(page.total, 'view')} (${number(page.human)} human, ${number(page.ai)} AI)`),
    'no page views',
  );
  const ai = summary.aiReaders;
  if (ai === null) {
    lines.push('', 'AI agent details need raw hits, which are no longer kept for this range.');
    return `${lines.join('\n')}\n`;
  }
  section(
    'AI agents',
    ai.topAgents.map((agent) => {
      const reads = agent.markdownReads + agent.llmsTxtReads + agent.llmsFullTxtReads;
      const verified = `${Math.round(agent.verifiedShare * 100)}% verified`;
      return `${agent.agent} (${agent.category}): ${count(agent.hits, 'hit')}, ${count(agent.pages, 'page')}, ${verified}${reads > 0 ? `, ${number(reads)} Markdown/llms.txt ${reads === 1 ? 'read' : 'reads'}` : ''}`;
    }),
    'no named AI agents',
  );
  section(
    'Read by agents more than by people',
    ai.agentFavouredPages.map((page) => `${code(page.path)}: ${count(page.aiReaders, 'AI reader')}, ${number(page.humanReaders)} human`),
    'none',
  );
  section(
    'Pages that answered agents with 4xx',
    ai.agentErrors.map(
      (error) => `${code(error.path)} ${error.status}: ${count(error.hits, 'hit')}${error.agents.length > 0 ? ` (${error.agents.join(', ')})` : ''}`,
    ),
    'none',
  );
  if (ai.moreAgentErrors) lines.push(`${bullet} … more: docwright analytics agent-errors`);
  section(
    'Visitors sent by AI products',
    ai.referralSources.map((source) => `${source.source}: ${count(source.referrals, 'view')}, ${count(source.visitors, 'visitor')}`),
    'none',
  );
  return `${lines.join('\n')}\n`;
}
