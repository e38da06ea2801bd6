import { Command, InvalidArgumentError, Option } from 'commander';
import { loadClientConfig } from '../../config/load-config.js';
import type { UsageReport } from '../../jobs/usage-report.js';
import { ok } from '../../../packages/sdk/src/index.js';
import { ApiClient } from '../api-client.js';
import { printJson } from '../output.js';

function parseMonth(value: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(value)) throw new InvalidArgumentError(`must be a month, YYYY-MM (got "${value}").`);
  return value;
}

const tokens = (count: number): string => count.toLocaleString('en-US');
const dollars = (amount: number | null): string => (amount === null ? '-' : `$${amount.toFixed(amount < 1 ? 4 : 2)}`);

function printReport(report: UsageReport): void {
  const rows = report.months.map((month) => [
    month.month,
    tokens(month.inputTokens),
    tokens(month.cachedInputTokens),
    tokens(month.outputTokens),
    tokens(month.totalTokens),
    dollars(month.estimatedCostUsd) + (month.unpricedTokens > 0 ? ` (+${tokens(month.unpricedTokens)} unpriced tokens)` : ''),
  ]);
  const header = ['MONTH', 'INPUT', 'CACHED', 'OUTPUT', 'TOTAL', 'EST. COST'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  for (const row of [header, ...rows])
    process.stdout.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  const { budget } = report;
  process.stdout.write(
    budget.monthlyTokens === null
      ? `No monthly token budget (${budget.month}: ${tokens(budget.usedTokens)} tokens used).\n`
      : `Budget ${budget.month}: ${tokens(budget.usedTokens)} of ${tokens(budget.monthlyTokens)} tokens used, ${tokens(budget.remainingTokens ?? 0)} left.\n`,
  );
}

/** `docwright usage`: a project's agent token usage and estimated cost per month, over HTTP. */
export function usageCommand(): Command {
  return new Command('usage')
    .description("Show a project's agent token usage and estimated cost per UTC month, and its monthly token budget.")
    .addOption(new Option('--project <id>', 'project id (default: $DOCWRIGHT_PROJECT)'))
    .option('--from <month>', 'first month, YYYY-MM (default: --to)', parseMonth)
    .option('--to <month>', 'last month, YYYY-MM (default: the current month)', parseMonth)
    .option('--json', "print the API's report as JSON")
    .addHelpText(
      'after',
      `
Costs are estimates from the price table (DOCWRIGHT_MODEL_PRICES_FILE on the server).
Set a project's budget with: docwright projects set-budget ID --monthly-tokens N

Examples:
  docwright usage --project PROJECT_ID
  docwright usage --from 2025-01 --to 2025-06 --json

Environment:
  DOCWRIGHT_URL      the server (default http://127.0.0.1:3000)
  DOCWRIGHT_API_KEY  an admin key of the project
  DOCWRIGHT_PROJECT  the default for --project`,
    )
    .action(async (options: { project?: string; from?: string; to?: string; json?: boolean }, self: Command) => {
      const config = loadClientConfig();
      const projectId = options.project ?? config.projectId;
      if (projectId === undefined || projectId === '') {
        self.error('error: pass --project ID or set DOCWRIGHT_PROJECT (the project the API key belongs to)', { exitCode: 2, code: 'docwright.usage' });
      }
      const query = { ...(options.from === undefined ? {} : { from: options.from }), ...(options.to === undefined ? {} : { to: options.to }) };
      const api = new ApiClient(config);
      const body: UsageReport = await api.call(() => ok(api.sdk().GET('/v2/agent/{projectId}/usage', { params: { path: { projectId }, query } })));
      if (options.json) return printJson(body);
      printReport(body);
    });
}
