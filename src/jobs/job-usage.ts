import { sql } from 'kysely';
import { DocwrightError } from '../core/errors.js';
import type { Executor } from '../db/transaction.js';
import { costMicroUsd, priceOf, type ModelPrices } from '../config/model-prices.js';
import type { AgentUsage } from '../agent/step-summary.js';

/** What one model step used, as recorded: tokens, and its estimated cost (null: the model has no price). */
export interface UsageDelta {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  costMicroUsd: number | null;
}

/** The usage object of the API (jobs, turns, months). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  /** Estimated, in US dollars; null when no token of it had a price. */
  estimatedCostUsd: number | null;
}

export const usageFromColumns = (row: {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  cost_microusd: number | null;
}): Usage => ({
  inputTokens: Number(row.input_tokens),
  outputTokens: Number(row.output_tokens),
  cachedInputTokens: Number(row.cached_input_tokens),
  cacheWriteTokens: Number(row.cache_write_tokens),
  estimatedCostUsd: row.cost_microusd === null ? null : Number(row.cost_microusd) / 1_000_000,
});

/** The UTC month of an instant, 'YYYY-MM': the unit of usage reports and budgets. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export function usageDelta(prices: ModelPrices, modelId: string, usage: AgentUsage): UsageDelta {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    costMicroUsd: costMicroUsd(priceOf(prices, modelId), usage),
  };
}

/**
 * Adds one step's usage to its turn, its job and its project's month, in the caller's
 * (fenced) transaction: the three always agree, and a budget check reads one row.
 */
export async function recordUsage(
  executor: Executor,
  target: { projectId: string; jobId: string; turnId: string },
  delta: UsageDelta,
  now: number,
): Promise<void> {
  if (delta.inputTokens === 0 && delta.outputTokens === 0) return;
  const cost = delta.costMicroUsd;
  const sums = {
    input_tokens: sql<number>`input_tokens + ${delta.inputTokens}`,
    output_tokens: sql<number>`output_tokens + ${delta.outputTokens}`,
    cached_input_tokens: sql<number>`cached_input_tokens + ${delta.cachedInputTokens}`,
    cache_write_tokens: sql<number>`cache_write_tokens + ${delta.cacheWriteTokens}`,
    // An unpriced step leaves the cost as it is (null stays null: "no price known").
    ...(cost === null ? {} : { cost_microusd: sql<number>`coalesce(cost_microusd, 0) + ${cost}` }),
  };
  await executor.updateTable('job_turns').set(sums).where('id', '=', target.turnId).execute();
  await executor.updateTable('jobs').set(sums).where('id', '=', target.jobId).execute();
  const unpriced = cost === null ? delta.inputTokens + delta.outputTokens : 0;
  await executor
    .insertInto('project_usage_months')
    .values({
      project_id: target.projectId,
      month: monthOf(now),
      input_tokens: delta.inputTokens,
      output_tokens: delta.outputTokens,
      cached_input_tokens: delta.cachedInputTokens,
      cache_write_tokens: delta.cacheWriteTokens,
      cost_microusd: cost ?? 0,
      unpriced_tokens: unpriced,
    })
    .onConflict((conflict) =>
      conflict.columns(['project_id', 'month']).doUpdateSet({
        input_tokens: sql<number>`project_usage_months.input_tokens + ${delta.inputTokens}`,
        output_tokens: sql<number>`project_usage_months.output_tokens + ${delta.outputTokens}`,
        cached_input_tokens: sql<number>`project_usage_months.cached_input_tokens + ${delta.cachedInputTokens}`,
        cache_write_tokens: sql<number>`project_usage_months.cache_write_tokens + ${delta.cacheWriteTokens}`,
        cost_microusd: sql<number>`project_usage_months.cost_microusd + ${cost ?? 0}`,
        unpriced_tokens: sql<number>`project_usage_months.unpriced_tokens + ${unpriced}`,
      }),
    )
    .execute();
}

/** Tokens (input + output) a project used in a month. */
export async function tokensUsedInMonth(executor: Executor, projectId: string, month: string): Promise<number> {
  const row = await executor
    .selectFrom('project_usage_months')
    .select(['input_tokens', 'output_tokens'])
    .where('project_id', '=', projectId)
    .where('month', '=', month)
    .executeTakeFirst();
  return row === undefined ? 0 : Number(row.input_tokens) + Number(row.output_tokens);
}

/** The turn's failure when the project's month has no tokens left: the model is never called. */
export function monthlyBudgetExhausted(budget: number, used: number, month: string): DocwrightError {
  return new DocwrightError(
    'budget_exceeded',
    `The project's monthly token budget (${budget.toLocaleString('en-US')} tokens) is used up for ${month} (${used.toLocaleString('en-US')} used); raise it or wait for the next month (UTC).`,
    { status: 422 },
  );
}

/** A run stopped by the share of the monthly budget it was given (its token budget was capped to what remained). */
export function monthlyBudgetRanOut(budget: number, month: string): DocwrightError {
  return new DocwrightError(
    'budget_exceeded',
    `The project's monthly token budget (${budget.toLocaleString('en-US')} tokens) ran out during this turn (${month}); raise it or wait for the next month (UTC).`,
    { status: 422 },
  );
}
