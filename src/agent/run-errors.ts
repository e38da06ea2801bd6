import { DocwrightError } from '../core/errors.js';
import type { Budgets } from './budgets.js';

export type BudgetName = 'steps' | 'tokens' | 'duration';

/**
 * The run stopped on one of its budgets while the model still had work to do. The turn
 * keeps what the tools changed (execute-turn.ts commits it); not retryable: it would stop again.
 */
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

/** The conversation outgrew the model's window even condensed; the turn kept its work. */
export function contextFilled(limitTokens: number): DocwrightError {
  return new DocwrightError(
    'context_window_exceeded',
    `The conversation reached the model's context window (${limitTokens.toLocaleString('en-US')} tokens for a request) before the agent finished.`,
    { status: 422 },
  );
}

/** Not even the prompt and a wrap-up note fit the window: the model cannot be asked anything. */
export function contextWindowExceeded(limitTokens: number): DocwrightError {
  return new DocwrightError(
    'context_window_exceeded',
    `The request does not fit the model's context window (${limitTokens.toLocaleString('en-US')} tokens for a request, after the step's output): use a model with a larger window, or set its window in DOCWRIGHT_MODEL_PRICES_FILE if the table's is wrong.`,
    { status: 422 },
  );
}

/** The caller stopped the run: the job was archived or the worker is shutting down. */
export function runCancelled(): DocwrightError {
  return new DocwrightError('cancelled', 'The agent run was cancelled.', { status: 409 });
}
