import type { Clock } from '../core/clock.js';
import { badRequest } from '../core/errors.js';
import type { Database } from '../db/database.js';
import type { Project } from '../projects/project.js';
import { monthOf, usageFromColumns, type Usage } from './job-usage.js';

/** A report covers at most this many months: two years, one row each. */
export const MAX_REPORT_MONTHS = 24;

export interface MonthUsage extends Usage {
  month: string;
  totalTokens: number;
  /** Tokens of models without a price: in the token counts, not in the cost. */
  unpricedTokens: number;
}

export interface UsageReport {
  projectId: string;
  /** Newest first, every month of the range (zeros where nothing ran). */
  months: MonthUsage[];
  /** The current UTC month against the project's monthly token budget; `monthlyTokens` null = no budget. */
  budget: { monthlyTokens: number | null; month: string; usedTokens: number; remainingTokens: number | null };
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

function monthIndex(month: string): number {
  const match = MONTH.exec(month);
  if (!match) throw badRequest('validation_failed', `"${month}" is not a month (YYYY-MM).`);
  return Number(match[1]) * 12 + Number(match[2]) - 1;
}

const monthName = (index: number): string => `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;

/**
 * A project's usage per UTC month from `from` to `to` (inclusive, 'YYYY-MM'; both default to
 * the current month), and where the current month stands against its budget.
 */
export async function usageReport(
  options: { database: Database; clock: Clock; defaultMonthlyTokenBudget: number | null },
  project: Project,
  range: { from?: string; to?: string },
): Promise<UsageReport> {
  const current = monthOf(options.clock.now());
  const to = range.to ?? (range.from !== undefined && monthIndex(range.from) > monthIndex(current) ? range.from : current);
  const from = range.from ?? to;
  const [first, last] = [monthIndex(from), monthIndex(to)];
  if (first > last) throw badRequest('validation_failed', `from (${from}) is after to (${to}).`);
  if (last - first + 1 > MAX_REPORT_MONTHS) throw badRequest('validation_failed', `A report covers at most ${MAX_REPORT_MONTHS} months.`);
  const names = [...new Set([...Array.from({ length: last - first + 1 }, (_, offset) => monthName(first + offset)), current])];
  const rows = await options.database.db
    .selectFrom('project_usage_months')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('month', 'in', names)
    .execute();
  const byMonth = new Map(rows.map((row) => [row.month, row]));
  const usageOf = (month: string): MonthUsage => {
    const row = byMonth.get(month);
    if (row === undefined) {
      return { month, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, estimatedCostUsd: 0, totalTokens: 0, unpricedTokens: 0 };
    }
    const usage = usageFromColumns(row);
    return { month, ...usage, totalTokens: usage.inputTokens + usage.outputTokens, unpricedTokens: Number(row.unpriced_tokens) };
  };
  const monthlyTokens = project.settings.monthlyTokenBudget ?? options.defaultMonthlyTokenBudget;
  const usedTokens = usageOf(current).totalTokens;
  return {
    projectId: project.id,
    months: Array.from({ length: last - first + 1 }, (_, offset) => usageOf(monthName(last - offset))),
    budget: { monthlyTokens, month: current, usedTokens, remainingTokens: monthlyTokens === null ? null : Math.max(0, monthlyTokens - usedTokens) },
  };
}
