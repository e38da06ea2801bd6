import { generateText, type LanguageModel, type ModelMessage, type StepResult, type ToolSet } from 'ai';
import type { Budgets } from './budgets.js';
import { toModelError } from './model-errors.js';
import { budgetExceeded, runCancelled } from './run-errors.js';
import { addUsage, summarizeStep, ZERO_USAGE, type AgentStepSummary, type AgentUsage } from './step-summary.js';
import { stepBudgetReached, tokenBudgetReached } from './stop-conditions.js';

/** What `onStep` receives after every model call: the step, and the usage of the run so far. */
export interface AgentStepEvent extends AgentStepSummary {
  totalUsage: AgentUsage;
}

export interface RunAgentOptions {
  model: LanguageModel;
  tools: ToolSet;
  system: string;
  /** From `buildTurnMessages`: earlier turns, then the current prompt. */
  messages: ModelMessage[];
  budgets: Budgets;
  /** Aborting it (job archived, worker shutting down) ends the run with `cancelled`. */
  signal?: AbortSignal;
  /** Awaited after each step; an error it throws stops the run and is rethrown. */
  onStep?: (step: AgentStepEvent) => void | Promise<void>;
  /** Retries of one failed model call, done by the AI SDK before the run fails. Default 2. */
  maxRetries?: number;
}

export interface AgentRunResult {
  finalMessage: string;
  steps: AgentStepSummary[];
  usage: AgentUsage;
}

/** The run ended with tool calls still pending in its last step: only a stop condition does that. */
function stoppedWithWorkLeft(steps: ReadonlyArray<StepResult<ToolSet>>): boolean {
  const last = steps.at(-1);
  return last !== undefined && last.toolCalls.length > 0;
}

/** The model's closing words: the last step that said anything, since a final step may be empty. */
function finalMessageOf(steps: readonly AgentStepSummary[]): string {
  for (let index = steps.length - 1; index >= 0; index -= 1) {
    const text = steps[index]?.text.trim() ?? '';
    if (text !== '') return text;
  }
  return '';
}

/**
 * Runs one agent turn: the model calls tools until it answers without calling any, or a
 * budget stops it. Failures come out as DocwrightErrors with the codes `budget_exceeded`,
 * `cancelled` or `model_error` (see `isRetryable`).
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunResult> {
  const { budgets } = options;
  if (options.signal?.aborted) throw runCancelled();

  const deadline = AbortSignal.timeout(budgets.maxDurationMs);
  // The SDK swallows errors thrown by step callbacks; this controller lets one stop the run.
  const callbackFailure = new AbortController();
  const signals = [deadline, callbackFailure.signal];
  if (options.signal !== undefined) signals.push(options.signal);
  const abortSignal = AbortSignal.any(signals);

  const steps: AgentStepSummary[] = [];
  let usage: AgentUsage = { ...ZERO_USAGE };
  // A holder object, because TypeScript cannot see the closure assigning a plain `let`.
  const onStepFailure: { failed: boolean; error: unknown } = { failed: false, error: undefined };

  const onStepFinish = async (step: StepResult<ToolSet>): Promise<void> => {
    const summary = summarizeStep(step);
    steps.push(summary);
    usage = addUsage(usage, summary.usage);
    if (options.onStep === undefined || onStepFailure.failed) return;
    try {
      await options.onStep({ ...summary, totalUsage: usage });
    } catch (error) {
      onStepFailure.failed = true;
      onStepFailure.error = error;
      callbackFailure.abort();
    }
  };

  let sdkSteps: ReadonlyArray<StepResult<ToolSet>>;
  try {
    const result = await generateText({
      model: options.model,
      tools: options.tools,
      system: options.system,
      messages: options.messages,
      abortSignal,
      maxRetries: options.maxRetries ?? 2,
      stopWhen: [stepBudgetReached(budgets.maxSteps), tokenBudgetReached(budgets.maxTokens)],
      onStepFinish,
    });
    sdkSteps = result.steps;
  } catch (error) {
    if (onStepFailure.failed) throw onStepFailure.error;
    // The caller's signal is checked first: an archived job is cancelled even if its
    // deadline happened to pass at the same moment.
    if (options.signal?.aborted) throw runCancelled();
    if (deadline.aborted) throw budgetExceeded('duration', budgets);
    const modelError = toModelError(error);
    if (modelError !== null) throw modelError;
    throw error;
  }
  if (onStepFailure.failed) throw onStepFailure.error;

  if (stoppedWithWorkLeft(sdkSteps)) {
    if (steps.length >= budgets.maxSteps) throw budgetExceeded('steps', budgets);
    if (usage.totalTokens >= budgets.maxTokens) throw budgetExceeded('tokens', budgets, usage.totalTokens);
  }
  return { finalMessage: finalMessageOf(steps), steps, usage };
}
