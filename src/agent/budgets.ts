/** Limits on one agent run (one turn of a job). A run that reaches one fails with `budget_exceeded`. */
export interface Budgets {
  /** Model calls; each tool round trip is one step. */
  maxSteps: number;
  /** Input plus output tokens summed over every step of the run. */
  maxTokens: number;
  /** Wall-clock time for the whole run, tools included. */
  maxDurationMs: number;
}

export const DEFAULT_BUDGETS: Readonly<Budgets> = Object.freeze({
  maxSteps: 50,
  maxTokens: 2_000_000,
  maxDurationMs: 15 * 60 * 1000,
});

/** Fills the unset fields from the defaults, so callers can override only what they configure. */
export function resolveBudgets(overrides: Partial<Budgets> = {}): Budgets {
  return {
    maxSteps: overrides.maxSteps ?? DEFAULT_BUDGETS.maxSteps,
    maxTokens: overrides.maxTokens ?? DEFAULT_BUDGETS.maxTokens,
    maxDurationMs: overrides.maxDurationMs ?? DEFAULT_BUDGETS.maxDurationMs,
  };
}
