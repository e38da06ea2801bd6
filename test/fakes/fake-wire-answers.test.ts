import { afterEach, describe, expect, test } from 'vitest';
import { assertMatchesSdkTypes, type SdkTypedValue } from '../helpers/provider-request-types.js';
import { replySequence, startFakeModelServer, type FakeModelServer, type FakeReply } from './fake-model-server.js';

/**
 * The fake's OpenAI answers, JSON and every SSE chunk, type-check against the official SDK's
 * response types. Anthropic's are checked by @ai-sdk/anthropic's own response schemas instead
 * (fake-anthropic-stream.test.ts): its SDK types declare fields required that the API leaves
 * out (a text block's `citations`, a tool_use block's `caller`), and the AI SDK rejects the
 * `citations: null` those types would ask for.
 */

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const REPLIES: FakeReply[] = [
  { text: 'Plain answer that is long enough to arrive in more than one streamed piece.' },
  { text: 'Calling.', toolCalls: [{ name: 'read_file', arguments: { path: 'a.mdx', startLine: 3 } }] },
  {
    toolCalls: [
      { name: 'search', arguments: { query: 'x' } },
      { name: 'read_file', arguments: { path: 'b.mdx' } },
    ],
  },
];

async function answers(stream: boolean): Promise<string[]> {
  const server = await startFakeModelServer({ script: replySequence(...REPLIES) });
  servers.push(server);
  const body = JSON.stringify({ model: 'm', stream, ...(stream ? { stream_options: { include_usage: true } } : {}), messages: [] });
  const bodies: string[] = [];
  for (const _reply of REPLIES) {
    const response = await fetch(`${server.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    bodies.push(await response.text());
  }
  return bodies;
}

function events(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length))
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as unknown);
}

describe("the fake's OpenAI answers match the official SDK types", () => {
  test('chat completions and completion chunks', async () => {
    const values: SdkTypedValue[] = [];
    const add = (label: string, type: SdkTypedValue['type'], list: unknown[]) =>
      list.forEach((value, index) => values.push({ label: `${label} ${index}`, type, value }));
    add(
      'completion',
      'OpenAIChatCompletion',
      (await answers(false)).map((text) => JSON.parse(text) as unknown),
    );
    add('chunk', 'OpenAIChatCompletionChunk', (await answers(true)).flatMap(events));
    expect(values.length).toBeGreaterThan(12);
    assertMatchesSdkTypes(values);
    // A completion with a field the type lacks, or a chunk missing one, fails.
    const completion = values[0]!.value as Record<string, unknown>;
    expect(() => assertMatchesSdkTypes([{ label: 'tampered', type: 'OpenAIChatCompletion', value: { ...completion, finish: 'stop' } }])).toThrow(
      /tampered at finish/,
    );
    const { created: _created, ...withoutCreated } = values[3]!.value as Record<string, unknown>;
    expect(() => assertMatchesSdkTypes([{ label: 'partial', type: 'OpenAIChatCompletionChunk', value: withoutCreated }])).toThrow(
      /partial .*'created' is missing/s,
    );
  });
});
