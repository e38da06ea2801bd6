import { describe, expect, test } from 'vitest';
import type { FakeModelRequest } from '../fakes/fake-model-server.js';
import { assertRequestsMatchSdkTypes } from './provider-request-types.js';

function recorded(protocol: FakeModelRequest['protocol'], body: Record<string, unknown>): FakeModelRequest {
  const path = protocol === 'anthropic-messages' ? '/v1/messages' : '/v1/chat/completions';
  return { protocol, path, body } as FakeModelRequest;
}

const GOOD_ANTHROPIC = {
  model: 'claude-test',
  max_tokens: 100,
  stream: true,
  system: [{ type: 'text', text: 'You edit docs.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: 'Fix the typo.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.mdx' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x'.repeat(5_000), cache_control: { type: 'ephemeral' } }] },
  ],
  tools: [{ name: 'read_file', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
};

const GOOD_OPENAI = {
  model: 'gpt-test',
  stream: true,
  stream_options: { include_usage: true },
  messages: [
    { role: 'system', content: 'You edit docs.' },
    { role: 'user', content: 'Fix the typo.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.mdx"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'file text' },
  ],
  tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }],
};

describe('assertRequestsMatchSdkTypes', () => {
  test('accepts well-formed bodies of both protocols, streamed or not', () => {
    assertRequestsMatchSdkTypes([
      recorded('anthropic-messages', GOOD_ANTHROPIC),
      recorded('anthropic-messages', { ...GOOD_ANTHROPIC, stream: false }),
      recorded('openai-chat', GOOD_OPENAI),
      recorded('openai-chat', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    ]);
  });

  test('rejects an unknown property, naming the request and where it is', () => {
    const bad = { ...GOOD_ANTHROPIC, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_contro: { type: 'ephemeral' } }] }] };
    expect(() => assertRequestsMatchSdkTypes([recorded('openai-chat', GOOD_OPENAI), recorded('anthropic-messages', bad)])).toThrow(
      /request 1 \(anthropic-messages \/v1\/messages\) at messages\[0\]\.content\[0\]\.cache_contro: .*cache_contro.* does not exist in type 'TextBlockParam'/,
    );
  });

  test('rejects a wrong type and a missing required field', () => {
    const wrongType = { ...GOOD_OPENAI, temperature: 'warm' };
    const { max_tokens: _dropped, ...missing } = GOOD_ANTHROPIC;
    let message = '';
    try {
      assertRequestsMatchSdkTypes([recorded('openai-chat', wrongType), recorded('anthropic-messages', missing)]);
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/request 0 \(openai-chat \/v1\/chat\/completions\) at temperature: Type 'string' is not assignable/);
    expect(message).toMatch(/request 1 \(anthropic-messages[^)]*\) at the top: .*max_tokens/s);
  });

  test('checks the nested and shared types too (the SDK files the helper leaves out hide none of them)', () => {
    expect(() => assertRequestsMatchSdkTypes([recorded('openai-chat', { ...GOOD_OPENAI, response_format: { type: 'jsn' } })])).toThrow(/response_format/);
    expect(() => assertRequestsMatchSdkTypes([recorded('openai-chat', { ...GOOD_OPENAI, reasoning_effort: 'extreme' })])).toThrow(/reasoning_effort/);
    const badSchema = { ...GOOD_ANTHROPIC, tools: [{ name: 'read_file', input_schema: { type: 'array' } }] };
    expect(() => assertRequestsMatchSdkTypes([recorded('anthropic-messages', badSchema)])).toThrow(
      /at tools\[0\]: .*input_schema.*"array"' is not assignable to type '"object"'/s,
    );
    const badCache = { ...GOOD_ANTHROPIC, system: [{ type: 'text', text: 'x', cache_control: { type: 'persistent' } }] };
    expect(() => assertRequestsMatchSdkTypes([recorded('anthropic-messages', badCache)])).toThrow(/system\[0\]\.cache_control\.type/);
  });

  test('rejects a field of the wrong protocol', () => {
    expect(() => assertRequestsMatchSdkTypes([recorded('openai-chat', { ...GOOD_OPENAI, max_tokens_to_sample: 5 })])).toThrow(/max_tokens_to_sample/);
    expect(() => assertRequestsMatchSdkTypes([recorded('anthropic-messages', { ...GOOD_ANTHROPIC, tool_choice: 'auto' })])).toThrow(/tool_choice/);
  });
});
