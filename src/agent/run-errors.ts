import { DocwrightError } from '../core/errors.js';
import type { Budgets } from './budgets.js';

export type BudgetName = 'steps' | 'tokens' | 'duration';

/** The run stopped on one of its budgets while the model still had work to do. Not retryable: it would stop again. */
export class BudgetExceededError extends DocwrightError {
  readonly budget: BudgetName;

  constructor(budget: BudgetName, message: string) {
    super('budget_exceeded', message, { status: 422 });
    this.budget = budget;
  }
}

function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${milliseconds} ms`;
  if (milliseconds < 60_000) return `${Math.round(milliseconds / 100) / 10} s`;
  return `${Math.round(milliseconds / 6_000) / 10} min`;
}

export function budgetExceeded(budget: BudgetName, budgets: Budgets, used?: number): BudgetExceededError {
  switch (budget) {
    case 'steps':
      return new BudgetExceededError(budget, `The agent reached its step budget (${budgets.maxSteps} steps) before finishing.`);
    case 'tokens':
      return new BudgetExceededError(
        budget,
        `The agent reached its token budget (${budgets.maxTokens.toLocaleString('en-US')} tokens${
          used === undefined ? '' : `, ${used.toLocaleString('en-US')} used`
        }) before finishing.`,
      );
    case 'duration':
      return new BudgetExceededError(budget, `The agent reached its time budget (${formatDuration(budgets.maxDurationMs)}) before finishing.`);
  }
}

/** The caller stopped the run: the job was archived or the worker is shutting down. */
export function runCancelled(): DocwrightError {
  return new DocwrightError('cancelled', 'The agent run was cancelled.', { status: 409 });
}
