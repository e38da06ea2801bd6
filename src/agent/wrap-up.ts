import type { ModelMessage } from 'ai';
import type { Budgets } from './budgets.js';
import type { BudgetName } from './run-errors.js';

/** Why a run was given its wrap-up step: one of its budgets, or the model's context window. */
export type StopReason = BudgetName | 'context';

export interface WrapUpInput {
  /** Zero-based number of the step about to be sent. */
  stepNumber: number;
  budgets: Budgets;
  elapsedMs: number;
  usedTokens: number;
  /** Estimated input tokens of the step about to be sent. */
  nextTokens: number;
  /** Whether that request fits the context window. */
  fits: boolean;
}

/**
 * Whether the step about to be sent must be the last: the step budget used up (the
 * wrap-up is one step beyond it), the time budget spent, a step that would reach the token
 * budget (the wrap-up may pass it by that one request), or a conversation that no longer
 * fits the window. Null: an ordinary step.
 */
export function wrapUpReason(input: WrapUpInput): StopReason | null {
  const { budgets } = input;
  if (!input.fits) return 'context';
  if (input.stepNumber >= budgets.maxSteps) return 'steps';
  if (input.elapsedMs >= budgets.maxDurationMs) return 'duration';
  if (input.usedTokens + input.nextTokens >= budgets.maxTokens) return 'tokens';
  return null;
}

const WHAT: Record<StopReason, string> = {
  steps: 'its step budget',
  tokens: 'its token budget',
  duration: 'its time budget',
  context: "the model's context window",
};

/**
 * The user message of the wrap-up step. The step is sent with `toolChoice: none`; the
 * words say the same, for models and servers that ignore the setting.
 */
export function wrapUpNote(reason: StopReason): ModelMessage {
  return {
    role: 'user',
    content: `[Docwright] This run has reached ${WHAT[reason]}. This is your last step and tools are disabled: do not call any tool. Reply now with a short summary of what you changed (name the files) and what is left undone. Your changes so far are kept: they will be committed and opened as a pull request for review.`,
  };
}
