import type { FakeAnswer, JsonObject } from './fake-model-types.js';
import { pieces, sendEvents, sendJson, sseEvent } from './fake-wire-writer.js';

/**
 * Anthropic Messages answers: a `message` object, or with `stream: true` the documented SSE
 * sequence: `message_start` (input usage, `output_tokens: 1`), per content block
 * `content_block_start` / `content_block_delta` (`text_delta`, or `input_json_delta` whose
 * `partial_json` pieces concatenate to the tool input) / `content_block_stop`, a `ping` after
 * the first block starts, then `message_delta` (stop reason, cumulative usage) and `message_stop`.
 */

function anthropicUsage({ usage }: FakeAnswer, outputTokens: number): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function stopReason(answer: FakeAnswer): string {
  return answer.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

function contentOf(answer: FakeAnswer): JsonObject[] {
  const content: JsonObject[] = [];
  if (answer.text !== '') content.push({ type: 'text', text: answer.text });
  answer.toolCalls.forEach((call, index) => {
    content.push({ type: 'tool_use', id: `toolu_${answer.callIndex}_${index}`, name: call.name, input: call.arguments });
  });
  return content;
}

export function sendAnthropicAnswer(answer: FakeAnswer): void {
  const { response, request, callIndex, cutAfterEvents } = answer;
  const message = {
    id: `msg_fake_${callIndex}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: contentOf(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: anthropicUsage(answer, answer.usage.outputTokens),
  };
  if (!request.stream) {
    sendJson(response, 200, message, {}, cutAfterEvents);
    return;
  }
  const event = (data: JsonObject & { type: string }): string => sseEvent(data, data.type);
  const events = [event({ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: anthropicUsage(answer, 1) } })];
  if (message.content.length === 0) events.push(event({ type: 'ping' }));
  message.content.forEach((block, index) => {
    if (block['type'] === 'text') {
      events.push(event({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      if (index === 0) events.push(event({ type: 'ping' }));
      for (const text of pieces(String(block['text']))) events.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
    } else {
      events.push(event({ type: 'content_block_start', index, content_block: { ...block, input: {} } }));
      if (index === 0) events.push(event({ type: 'ping' }));
      for (const partial_json of ['', ...pieces(JSON.stringify(block['input']))]) {
        events.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }));
      }
    }
    events.push(event({ type: 'content_block_stop', index }));
  });
  const { service_tier: _tier, cache_creation: _creation, ...deltaUsage } = anthropicUsage(answer, answer.usage.outputTokens);
  events.push(event({ type: 'message_delta', delta: { stop_reason: stopReason(answer), stop_sequence: null }, usage: deltaUsage }));
  events.push(event({ type: 'message_stop' }));
  sendEvents(response, events, cutAfterEvents);
}
