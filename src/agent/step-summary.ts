import type { StepResult, ToolSet } from 'ai';
import { jsonText } from '../core/json-text.js';
import { stepTotalTokens } from './stop-conditions.js';

export interface AgentUsage {
  /** Every input token, cache reads and writes included (the AI SDK's `inputTokens`). */
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens read from the provider's prompt cache (billed lower). */
  cachedInputTokens: number;
  /** Input tokens written to the provider's prompt cache (Anthropic bills them higher). */
  cacheWriteTokens: number;
}

export interface ToolCallSummary {
  toolName: string;
  /** A short, human-readable hint at the arguments, such as the path; never the full content. */
  argumentSummary: string;
  ok: boolean;
  /** Present when `ok` is false. */
  error?: string;
}

export interface AgentStepSummary {
  /** Zero-based. */
  stepNumber: number;
  toolCalls: ToolCallSummary[];
  /** Text the model wrote in this step (often empty when it only calls tools). */
  text: string;
  finishReason: string;
  usage: AgentUsage;
}

const MAX_SUMMARY_LENGTH = 120;
const MAX_INLINE_VALUE_LENGTH = 60;
const MAX_ERROR_LENGTH = 300;

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A one-line hint at what a tool call touched. The path is what a reader of the job's
 * progress wants to see; long values (file contents) are reduced to their length.
 */
export function summarizeToolInput(input: unknown): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string' || typeof input === 'number' || typeof input === 'boolean') return truncate(String(input), MAX_SUMMARY_LENGTH);
  if (typeof input !== 'object') return '';
  if (Array.isArray(input)) return `${input.length} items`;
  const record = input as Record<string, unknown>;
  if (typeof record['path'] === 'string') return truncate(record['path'], MAX_SUMMARY_LENGTH);
  if (typeof record['from'] === 'string' && typeof record['to'] === 'string') {
    return truncate(`${record['from']} → ${record['to']}`, MAX_SUMMARY_LENGTH);
  }
  const paths = record['paths'];
  if (Array.isArray(paths) && paths.every((path) => typeof path === 'string')) {
    return truncate(paths.join(', '), MAX_SUMMARY_LENGTH);
  }
  const parts: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === 'string') {
      parts.push(value.length <= MAX_INLINE_VALUE_LENGTH ? `${key}=${value}` : `${key}=<${value.length} chars>`);
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      parts.push(`${key}=${value}`);
    } else if (Array.isArray(value)) {
      parts.push(`${key}=[${value.length}]`);
    }
  }
  return truncate(parts.join(' '), MAX_SUMMARY_LENGTH);
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : jsonText(error);
  return truncate(text ?? 'unknown error', MAX_ERROR_LENGTH);
}

/**
 * Tools may report a failure as a result (`{ ok: false, error }`) instead of throwing, so
 * the model can read and react to it; for the progress record that is still a failure.
 */
function failureReportedInOutput(output: unknown): string | null {
  if (output === null || typeof output !== 'object') return null;
  const record = output as Record<string, unknown>;
  if (record['ok'] === false) return typeof record['error'] === 'string' ? errorText(record['error']) : 'failed';
  return null;
}

export function usageOfStep(step: Pick<StepResult<ToolSet>, 'usage'>): AgentUsage {
  return {
    inputTokens: step.usage.inputTokens ?? 0,
    outputTokens: step.usage.outputTokens ?? 0,
    totalTokens: stepTotalTokens(step),
    cachedInputTokens: step.usage.inputTokenDetails.cacheReadTokens ?? 0,
    cacheWriteTokens: step.usage.inputTokenDetails.cacheWriteTokens ?? 0,
  };
}

export function addUsage(left: AgentUsage, right: AgentUsage): AgentUsage {
  return {
    inputTokens: left.inputTokens + right.inputTokens,
    outputTokens: left.outputTokens + right.outputTokens,
    totalTokens: left.totalTokens + right.totalTokens,
    cachedInputTokens: left.cachedInputTokens + right.cachedInputTokens,
    cacheWriteTokens: left.cacheWriteTokens + right.cacheWriteTokens,
  };
}

export const ZERO_USAGE: Readonly<AgentUsage> = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 });

export function summarizeStep(step: StepResult<ToolSet>): AgentStepSummary {
  const outcomes = new Map<string, { ok: true } | { ok: false; error: string }>();
  for (const part of step.content) {
    if (part.type === 'tool-result') {
      const failure = failureReportedInOutput(part.output);
      outcomes.set(part.toolCallId, failure === null ? { ok: true } : { ok: false, error: failure });
    } else if (part.type === 'tool-error') {
      outcomes.set(part.toolCallId, { ok: false, error: errorText(part.error) });
    }
  }
  const toolCalls: ToolCallSummary[] = step.toolCalls.map((call) => {
    const outcome = outcomes.get(call.toolCallId) ?? { ok: false as const, error: 'the tool produced no result' };
    return {
      toolName: call.toolName,
      argumentSummary: summarizeToolInput(call.input),
      ...outcome,
    };
  });
  return {
    stepNumber: step.stepNumber,
    toolCalls,
    text: step.text,
    finishReason: step.finishReason,
    usage: usageOfStep(step),
  };
}
