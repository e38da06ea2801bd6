import type { LanguageModelUsage, StopCondition, ToolSet } from 'ai';

/** The part of a step these conditions read; narrower than StepResult so they are easy to exercise. */
interface StepWithUsage {
  usage: Pick<LanguageModelUsage, 'inputTokens' | 'outputTokens' | 'totalTokens'>;
}

/** Some providers omit `totalTokens`; the sum of both directions is then the honest total. */
export function stepTotalTokens(step: StepWithUsage): number {
  const { inputTokens, outputTokens, totalTokens } = step.usage;
  return totalTokens ?? (inputTokens ?? 0) + (outputTokens ?? 0);
}

export function totalTokensOf(steps: readonly StepWithUsage[]): number {
  return steps.reduce((sum, step) => sum + stepTotalTokens(step), 0);
}

/**
 * Like the SDK's `stepCountIs`, but with `>=`: the loop must never run past the budget,
 * even if a step were counted twice.
 */
export function stepBudgetReached(maxSteps: number): StopCondition<ToolSet> {
  return ({ steps }) => steps.length >= maxSteps;
}

/** True once the tokens spent by all steps so far reach the budget. */
export function tokenBudgetReached(maxTokens: number): StopCondition<ToolSet> {
  return ({ steps }) => totalTokensOf(steps) >= maxTokens;
}
