import { describe, expect, test } from 'vitest';
import type { StepResult, ToolSet } from 'ai';
import { DEFAULT_BUDGETS, resolveBudgets } from '../../src/agent/budgets.js';
import { stepBudgetReached, stepTotalTokens, tokenBudgetReached, totalTokensOf } from '../../src/agent/stop-conditions.js';

// The conditions read only `usage`; a full StepResult is not needed to exercise them.
function steps(...usages: Array<{ inputTokens?: number; outputTokens?: number; totalTokens?: number }>): Array<StepResult<ToolSet>> {
  return usages.map((usage) => ({ usage }) as unknown as StepResult<ToolSet>);
}

describe('budgets', () => {
  test('defaults are 50 steps, 2,000,000 tokens and 15 minutes', () => {
    expect(DEFAULT_BUDGETS).toEqual({ maxSteps: 50, maxTokens: 2_000_000, maxDurationMs: 900_000 });
  });

  test('overrides replace only the given fields', () => {
    expect(resolveBudgets({ maxSteps: 5 })).toEqual({ maxSteps: 5, maxTokens: 2_000_000, maxDurationMs: 900_000 });
  });
});

describe('stop conditions', () => {
  test('the step budget is reached at and beyond the limit', async () => {
    const condition = stepBudgetReached(3);
    expect(await condition({ steps: steps({}, {}) })).toBe(false);
    expect(await condition({ steps: steps({}, {}, {}) })).toBe(true);
    expect(await condition({ steps: steps({}, {}, {}, {}) })).toBe(true);
  });

  test('the token budget sums every step', async () => {
    const condition = tokenBudgetReached(1000);
    expect(await condition({ steps: steps({ totalTokens: 400 }, { totalTokens: 599 }) })).toBe(false);
    expect(await condition({ steps: steps({ totalTokens: 400 }, { totalTokens: 600 }) })).toBe(true);
  });

  test('a missing total falls back to input plus output', () => {
    expect(stepTotalTokens({ usage: { inputTokens: 30, outputTokens: 12, totalTokens: undefined } })).toBe(42);
    expect(stepTotalTokens({ usage: { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined } })).toBe(0);
    expect(totalTokensOf(steps({ inputTokens: 10, outputTokens: 5 }, { totalTokens: 100 }))).toBe(115);
  });
});
