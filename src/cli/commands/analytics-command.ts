import { Command, Option } from 'commander';
import {
  createProgressBar,
  formatImportSummary,
  importLogs,
  importWarnings,
  isUnreadable,
  ImportAbortedError,
  MAX_BATCH_SIZE,
  type FieldMap,
  type ImportProgress,
  type ImportSummary,
  type LogFormatChoice,
} from '../../analytics/import/index.js';
import { ApiClient } from '../api-client.js';
import type { PageCountsReport } from '../analytics-api-types.js';
import { createEventSender, type RejectedHitExample } from '../analytics-event-sender.js';
import { collectFieldMapping, parseDateOption, parseImportFormat, type DateOption } from '../analytics-options.js';
import { createVisitorsWriter, VISITORS_FORMATS, type VisitorsFormat } from '../analytics-visitors-output.js';
import { walkVisitorPages } from '../analytics-visitors-walk.js';
import { createWalkProgress } from '../analytics-walk-progress.js';
import { printJson } from '../output.js';
import { analyticsAgentsCommand } from './analytics-agents-command.js';
import { parseLimit } from '../parse-options.js';
import { resolveProject, usageError } from './analytics-command-options.js';
import { agentsReportCommand, reportCommands } from './analytics-report-commands.js';

const MAX_PAGE_SIZE = 250;

const VISITORS_HELP = `
Walks every page of GET /v1/analytics/{project}/visitors (offset += page size while
hasMore) and prints the site-wide totals and every page's counts, most visited first.
"human" and "ai" count unique visitors of each class; "total" counts each visitor once,
so it can be lower than human + ai. Dates are UTC; --to is exclusive.

Formats:
  table  aligned columns TOTAL HUMAN AI PATH, after the totals (default)
  csv    RFC 4180, columns scope,path,human,ai,total: one "site" row with the totals
         (empty path), then one "page" row per path
  json   {"totals": {...}, "visitors": [{path, human, ai, total}, ...]}

Progress goes to stderr when the walk takes more than a second.

Environment: DOCWRIGHT_URL (default http://127.0.0.1:3000), DOCWRIGHT_API_KEY,
DOCWRIGHT_PROJECT (the default --project).

Examples:
  docwright analytics visitors --project prj_123 --from 2025-06-01 --to 2025-07-01
  docwright analytics visitors --project prj_123 --format csv > visitors.csv`;

const VIEWS_HELP = `
Walks every page of GET /v1/analytics/{project}/views, the companion of /visitors with
the same shape and order, and prints the site-wide totals and every page's views, most
viewed first. A view is a stored hit of class human or ai, so "total" = human + ai;
crawler hits (ai-search, ai-training, bot) are not views. Dates are UTC; --to is
exclusive.

Formats:
  table  aligned columns TOTAL HUMAN AI PATH, after the totals (default)
  csv    RFC 4180, columns scope,path,human,ai,total: one "site" row, then one "page" row per path
  json   {"totals": {...}, "views": [{path, human, ai, total}, ...]}

Progress goes to stderr when the walk takes more than a second.

Environment: DOCWRIGHT_URL (default http://127.0.0.1:3000), DOCWRIGHT_API_KEY,
DOCWRIGHT_PROJECT (the default --project).

Examples:
  docwright analytics views --project prj_123 --from 2025-06-01 --to 2025-07-01
  docwright analytics views --project prj_123 --json > views.json`;

const IMPORT_HELP = `
Reads web-server access logs (plain or .gz), keeps page views (successful GETs of
pages, not assets or redirects), and sends them in batches to
POST /v1/analytics/{project}/events. Each hit's id is derived from the text of its log
line, so importing a file again (or a rotated, appended or gzipped copy) does not count
a line twice. Batches that fail with 429, 5xx or a network error are retried with
backoff, up to 5 times. The summary breaks down the lines that are not pages and warns
about hits older than the server's retention (DOCWRIGHT_ANALYTICS_RETENTION_DAYS) and
hits without a user agent (they count as bots). Exit 1 when hits were rejected, a file
broke off, or no line could be read.

Formats: combined and common (Apache/nginx), jsonl (one JSON object per line; the
usual member names are recognized, --field maps others), or auto (the default: detected
per file). A progress bar goes to stderr; the summary goes to stdout.

Examples:
  docwright analytics import --project prj_123 /var/log/nginx/access.log*
  docwright analytics import --project prj_123 --format jsonl --field path=req.uri \\
    --field timestamp=ts caddy.json`;

export function analyticsCommand(): Command {
  const command = new Command('analytics').description('Visitor analytics of a project on a running server (DOCWRIGHT_URL, DOCWRIGHT_API_KEY).');
  command.addCommand(pageCountsCommand('visitors'));
  command.addCommand(pageCountsCommand('views'));
  for (const report of reportCommands()) command.addCommand(report);
  command.addCommand(importCommand());
  command.addCommand(analyticsAgentsCommand(agentsReportCommand()));
  return command;
}

interface VisitorsOptions {
  project?: string;
  from?: DateOption;
  to?: DateOption;
  format: VisitorsFormat;
  pageSize: number;
  json?: boolean;
}

const PAGE_COUNTS = {
  visitors: { description: 'Unique human and AI visitors, site-wide and per page, over a date range (every page of results).', help: VISITORS_HELP },
  views: { description: 'Human and AI page views (hits), site-wide and per page, over a date range (every page of results).', help: VIEWS_HELP },
} as const;

/** `visitors` and `views`: the same walk, options and formats over the two per-page lists. */
function pageCountsCommand(report: PageCountsReport): Command {
  return new Command(report)
    .description(PAGE_COUNTS[report].description)
    .option('--project <id>', 'project id (default: DOCWRIGHT_PROJECT)')
    .option('--from <date>', 'first day included: YYYY-MM-DD or an ISO 8601 date-time (default: no lower bound)', (value) => parseDateOption(value, '--from'))
    .option('--to <date>', 'end, exclusive: YYYY-MM-DD or an ISO 8601 date-time (default: no upper bound)', (value) => parseDateOption(value, '--to'))
    .addOption(new Option('--format <format>', 'output format').choices([...VISITORS_FORMATS]).default('table'))
    .option('--json', 'same as --format json')
    .option('--page-size <n>', `rows per request, 1-${MAX_PAGE_SIZE}`, (value) => parseLimit(value, MAX_PAGE_SIZE, '--page-size'), MAX_PAGE_SIZE)
    .addHelpText('after', PAGE_COUNTS[report].help)
    .action(async (options: VisitorsOptions) => {
      const { from, to } = options;
      if (from && to && from.instant > to.instant) throw usageError('--from must not be after --to.');
      const projectId = resolveProject(options.project);
      const client = new ApiClient();
      client.headers();
      const context = { projectId, dateFrom: from?.text, dateTo: to?.text, report };
      const writer = createVisitorsWriter(options.json ? 'json' : options.format, (text) => process.stdout.write(text), context);
      const progress = createWalkProgress(process.stderr);
      let pages = 0;
      let rows = 0;
      try {
        for await (const page of walkVisitorPages(client, { ...context, pageSize: options.pageSize })) {
          if (pages === 0) writer.start(page.totals);
          writer.rows(page.visitors);
          pages++;
          rows += page.visitors.length;
          progress.update(pages, rows);
        }
      } finally {
        progress.finish();
      }
      writer.end();
    });
}

interface ImportCommandOptions {
  project?: string;
  format: LogFormatChoice;
  field?: FieldMap;
  batchSize: number;
  json?: boolean;
}

function importCommand(): Command {
  return new Command('import')
    .description('Import access logs (combined, common, JSON lines; plain or gzip) as page hits.')
    .argument('<file...>', 'log files, read in the order given')
    .option('--project <id>', 'project id (default: DOCWRIGHT_PROJECT)')
    .option('--format <format>', 'auto, combined, common or jsonl', parseImportFormat, 'auto' as LogFormatChoice)
    .option(
      '--field <name=column>',
      'JSON-lines member holding a value (repeatable), e.g. path=req.uri; names: timestamp, path, userAgent, ip, referrer, status, method, accept, visitorId',
      collectFieldMapping,
    )
    .option('--batch-size <n>', `hits per request, 1-${MAX_BATCH_SIZE}`, (value) => parseLimit(value, MAX_BATCH_SIZE, '--batch-size'), MAX_BATCH_SIZE)
    .option('--json', 'print the summary as JSON')
    .addHelpText('after', IMPORT_HELP)
    .action(async (files: string[], options: ImportCommandOptions) => {
      const projectId = resolveProject(options.project);
      const client = new ApiClient();
      client.headers();
      const controller = new AbortController();
      const interrupt = (): void => {
        if (controller.signal.aborted) process.exit(130);
        process.stderr.write('\nstopping: waiting for the batches in flight (Ctrl-C again to quit at once)\n');
        controller.abort(new Error('interrupted'));
      };
      process.on('SIGINT', interrupt);
      const sender = createEventSender(client, projectId, {
        signal: controller.signal,
        retry: {
          onRetry: (error, attempt, delayMs) =>
            process.stderr.write(`\nretrying a batch in ${(delayMs / 1000).toFixed(1)} s (attempt ${attempt + 1}): ${(error as Error).message}\n`),
        },
      });
      const bar = createProgressBar(process.stderr, 0, { label: 'import' });
      let summary: ImportSummary;
      let sent: ImportProgress | undefined;
      try {
        summary = await importLogs({
          files,
          format: options.format,
          fieldMap: options.field,
          batchSize: options.batchSize,
          send: sender.send,
          onProgress: (progress) => {
            sent = progress;
            bar.update(progress);
          },
          signal: controller.signal,
        });
      } catch (error) {
        bar.finish();
        if (!(error instanceof ImportAbortedError)) {
          // The error is printed by the CLI; say how far the import got, so nothing is lost silently.
          if (sent !== undefined) {
            process.stderr.write(
              `stopped after ${sent.lines} lines: ${sent.accepted} hits accepted, ${sent.rejected} rejected; run the import again to finish (ids make it safe)\n`,
            );
          }
          throw error;
        }
        printImportResult(error.summary, sender.rejectedExamples, options.json, true);
        process.exitCode = 130;
        return;
      } finally {
        process.off('SIGINT', interrupt);
      }
      bar.finish();
      printImportResult(summary, sender.rejectedExamples, options.json, false);
      // Hits the server refused, files that broke off or nothing readable are worth a non-zero exit for scripts.
      if (summary.rejected > 0 || summary.failedFiles.length > 0 || isUnreadable(summary)) process.exitCode = 1;
    });
}

function printImportResult(summary: ImportSummary, rejected: readonly RejectedHitExample[], json: boolean | undefined, interrupted: boolean): void {
  if (json) {
    const warnings = importWarnings(summary);
    // stdout holds the JSON for scripts; a person watching still sees what went wrong.
    for (const warning of warnings) process.stderr.write(`warning: ${warning.message}\n`);
    return printJson({ ...summary, interrupted, rejectedExamples: rejected, warnings });
  }
  if (interrupted) process.stdout.write('Interrupted; what was sent before stopping:\n');
  process.stdout.write(`${formatImportSummary(summary)}\n`);
  if (rejected.length === 0) return;
  process.stdout.write('  rejected hits (first ones):\n');
  for (const example of rejected) process.stdout.write(`    ${example.path || example.id}  ${example.code}: ${example.message}\n`);
}
