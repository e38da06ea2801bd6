import { generateText, ToolChoiceViolationError, type LanguageModel, type ModelMessage, type PrepareStepResult, type StepResult, type ToolSet } from 'ai';
import type { Budgets } from './budgets.js';
import { ContextWindow, type ContextLimits } from './context-window.js';
import { toModelError } from './model-errors.js';
import { cachedSystem, withCacheMarks } from './prompt-cache.js';
import { contextWindowExceeded, runCancelled, type BudgetName } from './run-errors.js';
import { addUsage, summarizeStep, ZERO_USAGE, type AgentStepSummary, type AgentUsage } from './step-summary.js';
import { stepBudgetReached, tokenBudgetReached, totalTokensOf } from './stop-conditions.js';
import { wrapUpNote, wrapUpReason, type StopReason } from './wrap-up.js';

/** What `onStep` receives after every model call: the step, and the usage of the run so far. */
export interface AgentStepEvent extends AgentStepSummary {
  totalUsage: AgentUsage;
}

export interface RunAgentOptions {
  model: LanguageModel;
  tools: ToolSet;
  system: string;
  /** Earlier turns and the current prompt (`buildTurnMessages`), or a run to continue (`AgentRunResult.messages` and a new user message). */
  messages: ModelMessage[];
  /** How many leading messages are never condensed: the earlier turns and the prompt. Default: all of `messages`. */
  pinned?: number;
  budgets: Budgets;
  /** Default: a large model's working context (context-window.ts) and no limit beyond it. */
  context?: ContextLimits;
  /** Most output tokens one step may ask for (the provider's `max_tokens`). */
  maxOutputTokens?: number;
  /** Aborting it (job archived, worker shutting down) ends the run with `cancelled`. */
  signal?: AbortSignal;
  /** Awaited after each step; an error it throws stops the run and is rethrown. */
  onStep?: (step: AgentStepEvent) => void | Promise<void>;
  /** Retries of one failed model call, done by the AI SDK before the run fails. Default 2. */
  maxRetries?: number;
  /** Numbers the steps of a continued run after the first run's. Default 0. */
  firstStepNumber?: number;
  now?: () => number;
}

export interface AgentRunResult {
  finalMessage: string;
  steps: AgentStepSummary[];
  usage: AgentUsage;
  /** The whole conversation: the messages given, then every step's (uncondensed), to continue the run. */
  messages: ModelMessage[];
  /** Why the run stopped before the model finished on its own (it was given a wrap-up step), or null. */
  stoppedBy: StopReason | null;
}

/**
 * A step still running this long after the time budget is aborted: the wrap-up step needs
 * a moment, a hung provider must not hold the turn. A fifth of the budget, 1 s to 2 min.
 */
function graceMs(budgets: Budgets): number {
  return Math.min(120_000, Math.max(1_000, Math.round(budgets.maxDurationMs * 0.2)));
}

/** The model's closing words: the last step that said anything, since a final step may be empty. */
function finalMessageOf(steps: readonly AgentStepSummary[]): string {
  for (let index = steps.length - 1; index >= 0; index -= 1) {
    const text = steps[index]?.text.trim() ?? '';
    if (text !== '') return text;
  }
  return '';
}

function toolCharacters(tools: ToolSet): number {
  // The schemas are not at hand as JSON here; names, descriptions and a typical schema's
  // size are close enough, since the provider's reported tokens correct the estimate.
  return Object.entries(tools).reduce((sum, [name, tool]) => sum + name.length + (tool.description?.length ?? 0) + 300, 0);
}

/**
 * Runs one agent turn: the model calls tools until it answers without calling any. Every
 * request is condensed to stay within `context` (context-window.ts) and marked for prompt
 * caching (prompt-cache.ts). When a budget (steps, tokens, time) or the context window
 * would be passed, the model gets one last step without tools to sum up, and the run
 * returns with `stoppedBy` set: what the tools did stays in the workspace for the caller
 * to commit. Throws DocwrightErrors `cancelled`, `model_error` (see `isRetryable`) and
 * `context_window_exceeded`.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunResult> {
  const { budgets } = options;
  if (options.signal?.aborted) throw runCancelled();
  const now = options.now ?? Date.now;
  const startedAt = now();
  const deadline = AbortSignal.timeout(budgets.maxDurationMs + graceMs(budgets));
  // The SDK swallows errors thrown by step callbacks; this controller lets one stop the run.
  const callbackFailure = new AbortController();
  const signals = [deadline, callbackFailure.signal];
  if (options.signal !== undefined) signals.push(options.signal);
  const abortSignal = AbortSignal.any(signals);

  const pinned = options.pinned ?? options.messages.length;
  const context = options.context ?? { targetTokens: Number.POSITIVE_INFINITY, limitTokens: Number.POSITIVE_INFINITY };
  const window = new ContextWindow(context, pinned, options.system.length + toolCharacters(options.tools));
  const firstStep = options.firstStepNumber ?? 0;
  const steps: AgentStepSummary[] = [];
  let usage: AgentUsage = { ...ZERO_USAGE };
  let lastEstimate = 0;
  let wrapUp: { reason: StopReason; step: number } | null = null;
  // A holder object, because TypeScript cannot see the closure assigning a plain `let`.
  const onStepFailure: { failed: boolean; error: unknown } = { failed: false, error: undefined };

  const prepareStep = ({
    stepNumber,
    messages,
    steps: done,
  }: {
    stepNumber: number;
    messages: ModelMessage[];
    steps: Array<StepResult<ToolSet>>;
  }): PrepareStepResult<ToolSet> => {
    let condensed = window.condense(messages);
    const reason = wrapUpReason({
      stepNumber,
      budgets,
      elapsedMs: now() - startedAt,
      usedTokens: totalTokensOf(done),
      nextTokens: condensed.estimatedTokens,
      fits: condensed.fits,
    });
    let extra: ModelMessage[] = [];
    if (reason !== null) {
      wrapUp = { reason, step: stepNumber };
      extra = [wrapUpNote(reason)];
      condensed = window.condense(messages, extra);
      // Even condensed the conversation is too long: sum up from the prompt alone.
      if (!condensed.fits) condensed = { ...condensed, messages: messages.slice(0, pinned) };
      if (window.tokensOf([...condensed.messages, ...extra]) > context.limitTokens) throw contextWindowExceeded(context.limitTokens);
    }
    lastEstimate = window.tokensOf([...condensed.messages, ...extra]);
    return {
      system: cachedSystem(options.system),
      messages: withCacheMarks([...condensed.messages, ...extra], pinned),
      ...(reason === null ? {} : { toolChoice: 'none' as const }),
    };
  };

  const onStepFinish = async (step: StepResult<ToolSet>): Promise<void> => {
    const summary = { ...summarizeStep(step), stepNumber: firstStep + steps.length };
    steps.push(summary);
    usage = addUsage(usage, summary.usage);
    window.calibrate(lastEstimate, step.usage.inputTokens);
    if (options.onStep === undefined || onStepFailure.failed) return;
    try {
      await options.onStep({ ...summary, totalUsage: usage });
    } catch (error) {
      onStepFailure.failed = true;
      onStepFailure.error = error;
      callbackFailure.abort();
    }
  };

  const partial = (stoppedBy: StopReason | null, messages: ModelMessage[]): AgentRunResult => ({
    finalMessage: finalMessageOf(steps),
    steps,
    usage,
    messages,
    stoppedBy,
  });

  let responseMessages: ModelMessage[];
  let lastStep: StepResult<ToolSet> | undefined;
  try {
    const result = await generateText({
      model: options.model,
      tools: options.tools,
      system: options.system,
      messages: options.messages,
      abortSignal,
      maxRetries: options.maxRetries ?? 2,
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      prepareStep,
      stopWhen: [
        ({ steps: done }) => wrapUp !== null && done.length > wrapUp.step,
        // Safety nets: a provider that reports more tokens than estimated, a miscounted step.
        stepBudgetReached(budgets.maxSteps + 1),
        tokenBudgetReached(budgets.maxTokens),
      ],
      onStepFinish,
    });
    responseMessages = result.response.messages;
    lastStep = result.steps.at(-1);
  } catch (error) {
    if (onStepFailure.failed) throw onStepFailure.error;
    // The caller's signal is checked first: an archived job is cancelled even if its
    // deadline happened to pass at the same moment.
    if (options.signal?.aborted) throw runCancelled();
    // A step hung past the time budget and its grace: the work so far is still kept.
    if (deadline.aborted) return partial('duration', options.messages);
    // The wrap-up step is sent with tool choice "none"; a model that calls a tool anyway
    // makes the SDK throw. Its summary is lost, its work is not.
    const given = wrapUp as { reason: StopReason } | null;
    if (given !== null && ToolChoiceViolationError.isInstance(error)) return partial(given.reason, options.messages);
    const modelError = toModelError(error);
    if (modelError !== null) throw modelError;
    throw error;
  }
  if (onStepFailure.failed) throw onStepFailure.error;
  const messages = [...options.messages, ...responseMessages];
  const workLeft = lastStep !== undefined && lastStep.toolCalls.length > 0;
  // Narrowed by hand: TypeScript cannot see prepareStep assigning `wrapUp`.
  const given = wrapUp as { reason: StopReason } | null;
  if (given !== null) return partial(given.reason, messages);
  if (workLeft) return partial(stopReasonOf(steps, budgets), messages);
  return partial(null, messages);
}

/** Which safety net stopped a run that still had tool calls pending. */
function stopReasonOf(steps: readonly AgentStepSummary[], budgets: Budgets): BudgetName {
  return steps.length > budgets.maxSteps ? 'steps' : 'tokens';
}
