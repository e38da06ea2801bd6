import { describe, expect, test } from 'vitest';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { replySequence, scriptedToolCalls, type FakeModelServer } from './fake-model-server.js';
import { fakeModelServers } from './fake-model-servers.js';

const start = fakeModelServers();

function claude(server: FakeModelServer) {
  return createAnthropic({ baseURL: server.url, apiKey: 'test-key' })('claude-test');
}

/** The SSE events of a raw streamed answer, as `{event, data}` pairs. */
async function rawEvents(server: FakeModelServer, body: object): Promise<Array<{ event: string; data: Record<string, unknown> }>> {
  const response = await fetch(`${server.url}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 100, stream: true, ...body }),
  });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return (await response.text())
    .split('\n\n')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const [eventLine, dataLine] = chunk.split('\n');
      return { event: eventLine!.replace(/^event: /, ''), data: JSON.parse(dataLine!.replace(/^data: /, '')) as Record<string, unknown> };
    });
}

const LONG_TEXT = 'The answer streams in several text deltas because it is longer than one piece of the stream.';

describe('fake Anthropic streaming', () => {
  test('speaks the documented event sequence, each event named as its type', async () => {
    const server = await start(() => ({
      text: 'Looking it up.',
      toolCalls: [{ name: 'search', arguments: { query: 'install guide for the command line tool' } }],
    }));
    const events = await rawEvents(server, { messages: [{ role: 'user', content: 'go' }] });
    expect(events.every(({ event, data }) => data['type'] === event)).toBe(true);
    expect(events.map(({ event }) => event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const messageStart = events[0]!.data['message'] as { content: unknown[]; stop_reason: unknown; usage: Record<string, number> };
    expect(messageStart.content).toEqual([]);
    expect(messageStart.stop_reason).toBeNull();
    expect(messageStart.usage).toMatchObject({ output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(messageStart.usage['input_tokens']).toBe(server.requests[0]!.estimatedInputTokens);
    expect(events[5]!.data['content_block']).toEqual({ type: 'tool_use', id: 'toolu_0_0', name: 'search', input: {} });
    const partials = events.slice(6, 9).map(({ data }) => (data['delta'] as { type: string; partial_json: string }).partial_json);
    expect(partials[0]).toBe('');
    expect(JSON.parse(partials.join(''))).toEqual({ query: 'install guide for the command line tool' });
    expect(events[10]!.data).toMatchObject({
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: server.requests[0]!.reportedUsage!.outputTokens },
    });
  });

  test('streamText through @ai-sdk/anthropic: text in pieces, tool calls, usage', async () => {
    const server = await start(scriptedToolCalls([{ name: 'echo', arguments: { word: 'ping', note: 'x'.repeat(120) } }], LONG_TEXT));
    const echoed: string[] = [];
    const result = streamText({
      model: claude(server),
      prompt: 'say it',
      maxOutputTokens: 1000,
      tools: {
        echo: tool({
          inputSchema: z.object({ word: z.string(), note: z.string() }),
          execute: async ({ word }) => {
            echoed.push(word);
            return word;
          },
        }),
      },
      stopWhen: stepCountIs(5),
    });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.join('')).toBe(LONG_TEXT);
    expect(deltas.length).toBeGreaterThan(1);
    expect(echoed).toEqual(['ping']);
    expect(await result.finishReason).toBe('stop');
    const usage = await result.totalUsage;
    const reported = server.requests.map((request) => request.reportedUsage!);
    expect(usage.inputTokens).toBe(reported.reduce((sum, entry) => sum + entry.inputTokens, 0));
    expect(usage.outputTokens).toBe(reported.reduce((sum, entry) => sum + entry.outputTokens, 0));
    expect(server.requests.map((request) => request.stream)).toEqual([true, true]);
    expect(server.requests[1]).toMatchObject({ toolRounds: 1, toolResults: ['ping'] });
  });

  test('generateText through @ai-sdk/anthropic on JSON answers, tool calls included', async () => {
    const server = await start(replySequence({ toolCalls: [{ name: 'look', arguments: { q: 'a' } }] }, { text: 'Done.' }));
    const looked: string[] = [];
    const result = await generateText({
      model: claude(server),
      prompt: 'look',
      maxOutputTokens: 1000,
      tools: { look: tool({ inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => looked.push(q) }) },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('Done.');
    expect(looked).toEqual(['a']);
    expect(server.requests.map((request) => request.stream)).toEqual([false, false]);
  });

  test('an empty answer still streams message_start, ping, message_delta and message_stop', async () => {
    const server = await start(() => ({ text: '' }));
    const events = await rawEvents(server, { messages: [{ role: 'user', content: 'hm' }] });
    expect(events.map(({ event }) => event)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
  });
});
