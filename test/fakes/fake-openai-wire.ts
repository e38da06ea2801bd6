import type { FakeAnswer, FakeToolCall, JsonObject } from './fake-model-types.js';
import { isObject } from './fake-model-types.js';
import { pieces, sendEvents, sendJson, sseEvent } from './fake-wire-writer.js';

/** OpenAI Chat Completions answers: a `chat.completion` object, or `chat.completion.chunk` SSE ending in `[DONE]`. */

function openAiToolCalls(toolCalls: FakeToolCall[], callIndex: number): JsonObject[] {
  return toolCalls.map((call, index) => ({
    id: `call_${callIndex}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

function openAiUsage({ usage, omitCacheDetails }: FakeAnswer): JsonObject {
  const promptTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: promptTokens + usage.outputTokens,
    ...(omitCacheDetails ? {} : { prompt_tokens_details: { cached_tokens: usage.cacheReadTokens } }),
  };
}

export function sendOpenAiAnswer(answer: FakeAnswer): void {
  const { response, request, toolCalls, callIndex, cutAfterEvents } = answer;
  const text = answer.text === '' && toolCalls.length > 0 ? null : answer.text;
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const usage = openAiUsage(answer);
  const base = { id: `chatcmpl-fake-${callIndex}`, created: Math.floor(Date.now() / 1000), model: request.model };
  if (!request.stream) {
    const message: JsonObject = { role: 'assistant', content: text, refusal: null };
    if (toolCalls.length > 0) message['tool_calls'] = openAiToolCalls(toolCalls, callIndex);
    const body = { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }], usage };
    sendJson(response, 200, body, {}, cutAfterEvents);
    return;
  }
  const chunk = (choices: unknown[], extra: JsonObject = {}): string => sseEvent({ ...base, object: 'chat.completion.chunk', choices, ...extra });
  const events = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
  for (const piece of pieces(text ?? '')) events.push(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
  openAiToolCalls(toolCalls, callIndex).forEach((call, index) => {
    events.push(chunk([{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }]));
  });
  events.push(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
  const streamOptions = request.body['stream_options'];
  if (isObject(streamOptions) && streamOptions['include_usage'] === true) events.push(chunk([], { usage }));
  events.push(sseEvent('[DONE]'));
  sendEvents(response, events, cutAfterEvents);
}
