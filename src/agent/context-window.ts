import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from 'ai';
import { summarizeToolInput } from './step-summary.js';

/**
 * How large a run's requests may grow. `targetTokens` is where condensing starts (a
 * working context, well below the model's window: every step re-sends it); `limitTokens`
 * is the most a request may ever hold (the model's window minus the step's output).
 */
export interface ContextLimits {
  targetTokens: number;
  limitTokens: number;
}

/**
 * The working context of a run whose model has a large window. Measured with
 * `npm run bench -- agent` (docs/benchmarks.md, "Agent context and cost"): a 40-step
 * exploration of a 1,500-page site stays under 64k tokens per request and about a third of
 * the cumulative input of an unbounded conversation.
 */
export const DEFAULT_CONTEXT_TARGET_TOKENS = 36_000;

/** Tool results and call inputs shorter than this stay verbatim: eliding them saves little and costs the model the facts. */
const KEEP_CHARACTERS = 1_500;
/** A string argument of an old tool call (a written page) longer than this is replaced by its length. */
const LONG_ARGUMENT_CHARACTERS = 400;
/** Condensing goes down to this share of the target, so it happens rarely and the cached prefix stays stable in between. */
const LOW_WATER = 0.5;

/**
 * Characters per token. Four is the usual English estimate; the run corrects it with the
 * token counts the provider reports (see `calibrate`).
 */
const CHARACTERS_PER_TOKEN = 4;

export function estimateTokens(characters: number): number {
  return Math.ceil(characters / CHARACTERS_PER_TOKEN);
}

interface Elidable {
  toolCallId: string;
  /** Characters saved by eliding it. */
  saving: number;
}

export interface CondensedRequest {
  messages: ModelMessage[];
  /** Estimated tokens of the whole request (system and tools included). */
  estimatedTokens: number;
  /** Whether the request fits `limitTokens` even after everything old was condensed. */
  fits: boolean;
}

/**
 * Keeps a run's requests bounded. Older tool results (and long arguments of older tool
 * calls, such as a page written whole) are replaced by a one-line stub that says what the
 * call did ("read_file guides/x.mdx: 412 lines; elided…"), oldest first, once a request
 * would pass the target; then, only if it would still pass the limit, whole early steps
 * are dropped. Elision is monotonic and happens in large strides: between two strides
 * every request extends the previous one byte for byte, which is what prompt caching
 * needs (prompt-cache.ts). The messages the SDK keeps are never changed, only the copies
 * sent.
 */
export class ContextWindow {
  private readonly elided = new Set<string>();
  private readonly dropped = new Set<string>();
  /** Provider tokens per estimated token, from the last step's reported input. */
  private ratio = 1;

  /**
   * @param pinned leading messages never condensed (earlier turns and the prompt)
   * @param fixedCharacters the system prompt and tool definitions, sent with every request
   */
  constructor(
    private readonly limits: ContextLimits,
    private readonly pinned: number,
    private readonly fixedCharacters: number,
  ) {}

  /** Corrects the estimate with what the provider reported for a request this window estimated. */
  calibrate(estimatedTokens: number, reportedInputTokens: number | undefined): void {
    if (reportedInputTokens === undefined || reportedInputTokens <= 0 || estimatedTokens <= 0) return;
    this.ratio = Math.min(3, Math.max(0.5, reportedInputTokens / estimatedTokens));
  }

  tokensOf(messages: readonly ModelMessage[]): number {
    return Math.ceil(estimateTokens(this.fixedCharacters + JSON.stringify(messages).length) * this.ratio);
  }

  /** The messages to send for the next step, condensed as needed. `extra` (a wrap-up note) is counted too. */
  condense(messages: readonly ModelMessage[], extra: readonly ModelMessage[] = []): CondensedRequest {
    const { targetTokens, limitTokens } = this.limits;
    let condensed = this.render(messages);
    let tokens = this.tokensOf([...condensed, ...extra]);
    if (tokens > targetTokens) {
      const goal = Math.floor(targetTokens * LOW_WATER);
      // The last step's results are what the model is about to act on: never elided.
      const candidates = this.elidable(messages.slice(this.pinned, lastAssistantIndex(messages)));
      let saved = 0;
      const excess = (tokens - goal) / this.ratio;
      for (const candidate of candidates) {
        if (estimateTokens(saved) >= excess) break;
        this.elided.add(candidate.toolCallId);
        saved += candidate.saving;
      }
      condensed = this.render(messages);
      tokens = this.tokensOf([...condensed, ...extra]);
    }
    if (tokens > limitTokens) {
      // A small window: drop whole early steps (a call and its result go together).
      for (const id of stepIds(messages.slice(this.pinned, lastAssistantIndex(messages)))) {
        if (this.dropped.has(id)) continue;
        this.dropped.add(id);
        condensed = this.render(messages);
        tokens = this.tokensOf([...condensed, ...extra]);
        if (tokens <= limitTokens) break;
      }
    }
    return { messages: condensed, estimatedTokens: tokens, fits: tokens <= limitTokens };
  }

  private elidable(messages: readonly ModelMessage[]): Elidable[] {
    const savings = new Map<string, number>();
    for (const message of messages) {
      if (message.role !== 'assistant' && message.role !== 'tool') continue;
      if (typeof message.content === 'string') continue;
      for (const part of message.content) {
        if (part.type !== 'tool-call' && part.type !== 'tool-result') continue;
        if (this.elided.has(part.toolCallId)) continue;
        const size = JSON.stringify(part.type === 'tool-call' ? part.input : part.output).length;
        if (size < KEEP_CHARACTERS && part.type === 'tool-result') continue;
        const saving = part.type === 'tool-call' ? longArgumentCharacters(part.input) : size;
        if (saving <= 0) continue;
        savings.set(part.toolCallId, (savings.get(part.toolCallId) ?? 0) + saving);
      }
    }
    return [...savings].map(([toolCallId, saving]) => ({ toolCallId, saving }));
  }

  private render(messages: readonly ModelMessage[]): ModelMessage[] {
    if (this.elided.size === 0 && this.dropped.size === 0) return [...messages];
    const calls = toolCallsById(messages);
    const result: ModelMessage[] = [];
    let droppedSteps = 0;
    for (const [index, message] of messages.entries()) {
      if (index < this.pinned) {
        result.push(message);
        continue;
      }
      if (message.role === 'assistant' && typeof message.content !== 'string') {
        const id = message.content.find((part) => part.type === 'tool-call')?.toolCallId;
        if (id !== undefined && this.dropped.has(id)) {
          droppedSteps += 1;
          continue;
        }
        result.push(this.renderAssistant(message, droppedSteps));
        droppedSteps = 0;
        continue;
      }
      if (message.role === 'tool') {
        const first = message.content.find((part) => part.type === 'tool-result');
        if (first !== undefined && this.dropped.has(stepIdOf(first.toolCallId, messages))) continue;
        result.push(this.renderTool(message, calls));
        continue;
      }
      result.push(message);
    }
    return result;
  }

  private renderAssistant(message: AssistantModelMessage, droppedBefore: number): AssistantModelMessage {
    if (typeof message.content === 'string') return message;
    const content = message.content.map((part) =>
      part.type === 'tool-call' && this.elided.has(part.toolCallId) ? { ...part, input: shortenedInput(part.input) } : part,
    );
    if (droppedBefore > 0) {
      content.unshift({ type: 'text', text: `[${droppedBefore} earlier step${droppedBefore === 1 ? ' was' : 's were'} removed to fit the context window.]` });
    }
    return { ...message, content };
  }

  private renderTool(message: ToolModelMessage, calls: ReadonlyMap<string, { toolName: string; input: unknown }>): ToolModelMessage {
    return {
      ...message,
      content: message.content.map((part) => {
        if (part.type !== 'tool-result' || !this.elided.has(part.toolCallId)) return part;
        const size = JSON.stringify(part.output).length;
        if (size < KEEP_CHARACTERS) return part;
        const call = calls.get(part.toolCallId);
        return { ...part, output: { type: 'text' as const, value: elisionStub(part.toolName, call?.input, part.output, size) } };
      }),
    };
  }
}

/** Index of the last assistant message: what follows it is the newest step's results. */
function lastAssistantIndex(messages: readonly ModelMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (messages[index]?.role === 'assistant') return index;
  return messages.length;
}

function toolCallsById(messages: readonly ModelMessage[]): Map<string, { toolName: string; input: unknown }> {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
  }
  return calls;
}

/** The first tool call id of each assistant step, oldest first: a step's name for dropping. */
function stepIds(messages: readonly ModelMessage[]): string[] {
  const ids: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    const id = message.content.find((part) => part.type === 'tool-call')?.toolCallId;
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/** The step (its first call's id) a tool result belongs to. */
function stepIdOf(toolCallId: string, messages: readonly ModelMessage[]): string {
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    const calls = message.content.filter((part) => part.type === 'tool-call');
    if (calls.some((part) => part.toolCallId === toolCallId)) return calls[0]?.toolCallId ?? toolCallId;
  }
  return toolCallId;
}

function longArgumentCharacters(input: unknown): number {
  if (typeof input !== 'object' || input === null) return 0;
  let total = 0;
  for (const value of Object.values(input)) if (typeof value === 'string' && value.length > LONG_ARGUMENT_CHARACTERS) total += value.length;
  return total;
}

function shortenedInput(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const shortened: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    shortened[key] =
      typeof value === 'string' && value.length > LONG_ARGUMENT_CHARACTERS
        ? `[${value.length} characters, elided from the conversation to save context]`
        : value;
  }
  return shortened;
}

/** What stays of an elided result: enough to know what was done and how to get it back. */
export function elisionStub(toolName: string, input: unknown, output: unknown, size: number): string {
  const target = summarizeToolInput(input);
  const value = typeof output === 'object' && output !== null ? (output as { value?: unknown }).value : undefined;
  const facts: string[] = [];
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of ['startLine', 'endLine', 'totalLines', 'total', 'truncated']) {
      if (typeof record[key] === 'number' || typeof record[key] === 'boolean') facts.push(`${key} ${String(record[key])}`);
    }
    if (Array.isArray(record['matches'])) facts.push(`${record['matches'].length} matches`);
    if (Array.isArray(record['files'])) facts.push(`${record['files'].length} files`);
    if (Array.isArray(record['newProblems'])) facts.push(`${record['newProblems'].length} new problems`);
  }
  const detail = facts.length > 0 ? ` (${facts.join(', ')})` : '';
  return `[Earlier result of ${toolName}${target === '' ? '' : ` ${target}`}${detail}: ${size} characters, elided from the conversation to save context. Call the tool again if you need it.]`;
}

/**
 * Most output tokens one step asks for. A page written whole fits (16k tokens is some
 * 60 KB of text); asking for the model's maximum (64k–128k) reserves that much of the
 * window on every request and, for Anthropic, is refused without streaming.
 */
export const STEP_OUTPUT_TOKENS = 16_384;

/** The limits of a model with this window: what a request may hold after the step's output, with a margin for the estimate's error. */
export function contextLimitsFor(windowTokens: number, outputTokens: number): ContextLimits {
  const limitTokens = Math.max(1_024, Math.floor(windowTokens * 0.95) - outputTokens);
  return { limitTokens, targetTokens: Math.min(DEFAULT_CONTEXT_TARGET_TOKENS, Math.floor(limitTokens * 0.6)) };
}
