/**
 * The `agent` suite's figures, computed from what the fake provider received: each
 * request's size (tokens as characters ÷ 4, the fake's own estimate), the usage the fake
 * reported (cache reads and writes included, once it simulates caching), and the naive
 * conversation rebuilt from the same records: request k of an agent without context
 * management or caching is the first request's system, tools and prompt plus every
 * message of steps 1…k as it was first sent, whole.
 */
import type { FakeModelRequest } from '../../test/fakes/fake-model-server.js';
import { costMicroUsd, type ModelPrice } from '../../src/config/model-prices.js';

/**
 * A request as recorded. Older fakes (before they simulated caching) carried neither the
 * size estimate nor the reported usage; the suite still reads them, so it can be run
 * against an older checkout for comparison.
 */
type RecordedRequest = Omit<FakeModelRequest, 'estimatedInputTokens'> & { estimatedInputTokens?: number };

const tokensOf = (characters: number): number => Math.max(1, Math.ceil(characters / 4));

export interface RequestFigures {
  /** Tokens (characters ÷ 4) of every request, in order. */
  requestTokens: number[];
  /** Same, of the naive conversation's request at the same step. */
  naiveRequestTokens: number[];
  inputTokens: number;
  naiveInputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Whether the fake reported cache use (else every input token counts at the full price). */
  cacheReported: boolean;
  costMicroUsd: number;
  naiveCostMicroUsd: number;
  /** Tool results the agent cut below what the tool read; the naive request counts their full text. */
  cappedResults: number;
}

function messagesOf(request: Pick<FakeModelRequest, 'body'>): unknown[] {
  return Array.isArray(request.body['messages']) ? (request.body['messages'] as unknown[]) : [];
}

/** Index of the message carrying the tool calls of answer `callIndex`, or -1. */
function messageOfAnswer(messages: readonly unknown[], callIndex: number): number {
  const prefix = `toolu_${callIndex}_`;
  return messages.findIndex((message) => {
    const content = (message as { content?: unknown }).content;
    return (
      Array.isArray(content) && content.some((block: { type?: unknown; id?: unknown }) => block.type === 'tool_use' && String(block.id).startsWith(prefix))
    );
  });
}

/** The tool_result block answering call `callIndex` among `messages`, if any. */
function resultOfCall(messages: readonly unknown[], callIndex: number): { content?: unknown } | undefined {
  const id = `toolu_${callIndex}_0`;
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    const found = (content as Array<{ type?: unknown; tool_use_id?: unknown; content?: unknown }>).find(
      (block) => block.type === 'tool_result' && block.tool_use_id === id,
    );
    if (found !== undefined) return found;
  }
  return undefined;
}

export function requestFigures(input: {
  requests: readonly FakeModelRequest[];
  /** The plan step each request was answered with (-1: the final answer), and the answer's text. */
  answers: ReadonlyArray<{ step: number; replyText: string }>;
  /**
   * Per plan step, the JSON text of the tool's result without the one-result cap (see
   * naive-tool-results.ts); a result the agent sent shorter counts at this size.
   */
  naiveResults: ReadonlyArray<string | undefined>;
  price: ModelPrice;
}): RequestFigures {
  const requests = input.requests as readonly RecordedRequest[];
  const first = requests[0];
  if (first === undefined) throw new Error('the agent sent no request');
  const requestTokens = requests.map((request) => request.estimatedInputTokens ?? tokensOf(request.rawBody.length));
  // The naive body grows by each step's messages as they were first sent: the call's
  // assistant message and everything after it in the request that answered the call.
  const naiveMessages: unknown[] = [...messagesOf(first)];
  const naiveRequestTokens: number[] = [];
  let cappedResults = 0;
  let extraCharacters = 0;
  requests.forEach((request, index) => {
    if (index > 0) {
      const messages = messagesOf(request);
      const at = messageOfAnswer(messages, index - 1);
      const added = at === -1 ? messages.slice(-1) : messages.slice(at);
      naiveMessages.push(...added);
      const whole = input.naiveResults[input.answers[index - 1]?.step ?? -1];
      const sent = resultOfCall(added, index - 1);
      if (whole !== undefined && sent !== undefined) {
        // In the body the result is a JSON string inside JSON: compare both escaped alike.
        const missing = JSON.stringify(whole).length - JSON.stringify(sent.content ?? '').length;
        if (missing > 0) {
          cappedResults += 1;
          extraCharacters += missing;
        }
      }
    }
    const body = JSON.stringify({ ...first.body, messages: naiveMessages });
    naiveRequestTokens.push(tokensOf(body.length + extraCharacters));
  });
  let outputTokens = 0;
  let cacheReadTokens = 0;
  let cacheWriteTokens = 0;
  let cacheReported = false;
  requests.forEach((request, index) => {
    const reported = request.reportedUsage;
    if (reported !== undefined) cacheReported = true;
    outputTokens += reported?.outputTokens ?? tokensOf(input.answers[index]?.replyText.length ?? 0);
    cacheReadTokens += reported?.cacheReadTokens ?? 0;
    cacheWriteTokens += reported?.cacheWriteTokens ?? 0;
  });
  const inputTokens = requestTokens.reduce((sum, tokens) => sum + tokens, 0);
  const naiveInputTokens = naiveRequestTokens.reduce((sum, tokens) => sum + tokens, 0);
  return {
    requestTokens,
    naiveRequestTokens,
    inputTokens,
    naiveInputTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    cacheReported,
    costMicroUsd: costMicroUsd(input.price, { inputTokens, outputTokens, cachedInputTokens: cacheReadTokens, cacheWriteTokens }) ?? 0,
    naiveCostMicroUsd: costMicroUsd(input.price, { inputTokens: naiveInputTokens, outputTokens, cachedInputTokens: 0, cacheWriteTokens: 0 }) ?? 0,
    cappedResults,
  };
}
