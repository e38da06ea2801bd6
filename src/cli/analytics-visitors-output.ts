import type { PageCountsReport, PageVisitors, VisitorCounts } from './analytics-api-types.js';
import { csvRow } from './analytics-csv.js';

export const VISITORS_FORMATS = ['table', 'csv', 'json'] as const;
export type VisitorsFormat = (typeof VISITORS_FORMATS)[number];

export interface VisitorsContext {
  projectId: string;
  dateFrom?: string;
  dateTo?: string;
  /** Unique visitors (default) or views: the heading and the JSON list's name. */
  report?: PageCountsReport;
}

/**
 * Writes the visitors report while pages arrive, so a walk over many pages shows rows
 * at once and never holds them all. `start` gets the site-wide totals of the first page.
 */
export interface VisitorsWriter {
  start(totals: VisitorCounts): void;
  rows(entries: readonly PageVisitors[]): void;
  end(): void;
}

export function createVisitorsWriter(format: VisitorsFormat, write: (text: string) => void, context: VisitorsContext): VisitorsWriter {
  switch (format) {
    case 'table':
      return tableWriter(write, context);
    case 'csv':
      return csvWriter(write);
    case 'json':
      return jsonWriter(write, context.report ?? 'visitors');
  }
}

const COUNT_COLUMNS = ['TOTAL', 'HUMAN', 'AI'] as const;

/** Counts first, right-aligned to the width of the site-wide totals (no page can exceed them), path last: columns line up without buffering. */
function tableWriter(write: (text: string) => void, context: VisitorsContext): VisitorsWriter {
  let widths = [0, 0, 0];
  let count = 0;
  const number = (value: number): string => value.toLocaleString('en-US');
  const line = (cells: string[], path: string): string => `${cells.map((cell, column) => cell.padStart(widths[column] ?? 0)).join('  ')}  ${path}\n`;
  return {
    start(totals) {
      const views = context.report === 'views';
      write(`${views ? 'Page views' : 'Unique visitors'} of project ${context.projectId}, ${describeRange(context)}\n`);
      const note = views ? 'every human and AI view' : 'human and AI deduplicated';
      write(`  human  ${number(totals.human)}\n  ai     ${number(totals.ai)}\n  total  ${number(totals.total)}  (${note})\n\n`);
      widths = [totals.total, totals.human, totals.ai].map((value, column) => Math.max(COUNT_COLUMNS[column]?.length ?? 0, number(value).length));
      write(line([...COUNT_COLUMNS], 'PATH'));
    },
    rows(entries) {
      let text = '';
      for (const entry of entries) text += line([number(entry.total), number(entry.human), number(entry.ai)], entry.path);
      count += entries.length;
      if (text !== '') write(text);
    },
    end() {
      write(count === 0 ? 'No page views in this range.\n' : `\n${number(count)} ${count === 1 ? 'page' : 'pages'}.\n`);
    },
  };
}

/** A `scope` column keeps the site-wide totals in the same file as the pages: `site` (path empty), then one `page` row each. */
function csvWriter(write: (text: string) => void): VisitorsWriter {
  return {
    start(totals) {
      write(csvRow(['scope', 'path', 'human', 'ai', 'total']));
      write(csvRow(['site', '', totals.human, totals.ai, totals.total]));
    },
    rows(entries) {
      let text = '';
      for (const entry of entries) text += csvRow(['page', entry.path, entry.human, entry.ai, entry.total]);
      if (text !== '') write(text);
    },
    end() {},
  };
}

/** The API's own shape, `{ totals, visitors }` (or `views`), with every page's entries in one array; one entry per line. */
function jsonWriter(write: (text: string) => void, list: PageCountsReport): VisitorsWriter {
  let first = true;
  return {
    start(totals) {
      write(`{\n  "totals": ${JSON.stringify({ human: totals.human, ai: totals.ai, total: totals.total })},\n  "${list}": [`);
    },
    rows(entries) {
      let text = '';
      for (const entry of entries) {
        text += `${first ? '' : ','}\n    ${JSON.stringify({ path: entry.path, human: entry.human, ai: entry.ai, total: entry.total })}`;
        first = false;
      }
      if (text !== '') write(text);
    },
    end() {
      write(first ? ']\n}\n' : '\n  ]\n}\n');
    },
  };
}

function describeRange(context: VisitorsContext): string {
  if (context.dateFrom === undefined && context.dateTo === undefined) return 'all time (UTC)';
  if (context.dateTo === undefined) return `from ${context.dateFrom} (UTC)`;
  if (context.dateFrom === undefined) return `before ${context.dateTo} (UTC)`;
  return `from ${context.dateFrom} to before ${context.dateTo} (UTC)`;
}
