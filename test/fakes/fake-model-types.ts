import type { ServerResponse } from 'node:http';

/** The shapes scripts and tests use with the fake model server (test/fakes/fake-model-server.ts). */

export interface FakeToolCall {
  name: string;
  arguments: object;
}

export interface FakeReplyOptions {
  /** Wait this long before answering (ends early if the client disconnects). */
  delayMs?: number;
  /**
   * Reported token usage. Without it the fake reports what a provider would: input is request
   * bytes ÷ 4, split into cache reads and writes by the simulated prompt cache. `inputTokens` is
   * the whole prompt; `cachedInputTokens` and `cacheWriteTokens` are parts of it, sent the way
   * each API does (Anthropic's `input_tokens` excludes both).
   */
  usage?: FakeUsage;
  /**
   * Answer with a connection that breaks: a streamed answer writes this many SSE events (all
   * of them if there are fewer) and then the socket is destroyed; any other answer sends its
   * headers and the first half of its body, then the socket is destroyed.
   */
  cutAfterEvents?: number;
}

export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
}

export interface FakeStatusReply extends FakeReplyOptions {
  status: number;
  /** Defaults to the error body the provider sends for that status (e.g. 529 `overloaded_error`). */
  body?: object;
  headers?: Record<string, string>;
}

export type FakeReply = ({ toolCalls: FakeToolCall[]; text?: string } & FakeReplyOptions) | ({ text: string } & FakeReplyOptions) | FakeStatusReply;

export type FakeProtocol = 'openai-chat' | 'anthropic-messages';

/**
 * Usage as the fake reported it, in one meaning for both protocols so that tests can sum it:
 * `inputTokens` is the prompt that was neither read from nor written to the cache (Anthropic's
 * `input_tokens`; OpenAI's `prompt_tokens` minus `cached_tokens`). The three input fields add up
 * to the whole prompt.
 */
export interface FakeReportedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** One request as received, plus the facts scripts usually need, read out of the body. */
export interface FakeModelRequest {
  protocol: FakeProtocol;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body exactly as the client sent it. */
  body: Record<string, unknown>;
  /** The body as text: search it to prove something never reached the model. */
  rawBody: string;
  model: string;
  stream: boolean;
  /** Names of the tools offered in this request. */
  toolNames: string[];
  /** Assistant messages in this request that called tools: the current turn's round trips. */
  toolRounds: number;
  /** Text of every tool result in the conversation, oldest first. */
  toolResults: string[];
  /** Text of the last user message. */
  lastUserText: string;
  /** The system prompt: OpenAI's system messages, or Anthropic's `system` field. */
  systemText: string;
  /** Request bytes ÷ 4: the fake's measure of the prompt's size. */
  estimatedInputTokens: number;
  /** What the fake reported for this request; absent until it answered, and for status replies. */
  reportedUsage?: FakeReportedUsage;
}

export type FakeModelScript = (request: FakeModelRequest, callIndex: number) => FakeReply | Promise<FakeReply>;

export interface FakeModelServer {
  /** Base URL ending in `/v1`; pass it as the provider's base URL. */
  url: string;
  /** Every request received, in order (failed replies included). */
  requests: FakeModelRequest[];
  close(): Promise<void>;
}

/** A successful answer, whatever the protocol: what the wire writers put on the wire. */
export interface FakeAnswer {
  response: ServerResponse;
  request: FakeModelRequest;
  toolCalls: FakeToolCall[];
  text: string;
  usage: FakeReportedUsage;
  /** The script gave usage without cache figures: OpenAI's answer then has no cache details. */
  omitCacheDetails: boolean;
  callIndex: number;
  cutAfterEvents: number | undefined;
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** bytes ÷ 4, at least 1: the fakes' one token measure. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(Buffer.byteLength(text, 'utf8') / 4));
}
