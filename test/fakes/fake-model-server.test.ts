import { describe, expect, test } from 'vitest';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import {
  endlessToolLoop,
  replySequence,
  replyWithText,
  scriptedToolCalls,
  startFakeModelServer,
  type FakeModelScript,
  type FakeModelServer,
} from './fake-model-server.js';
import { fakeModelServers } from './fake-model-servers.js';

const start = fakeModelServers();

function post(server: FakeModelServer, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

describe('fake model server', () => {
  test('answers chat completions with text, usage and a recorded request', async () => {
    const server = await start(replyWithText('hello', { usage: { inputTokens: 11, outputTokens: 2 } }));
    const response = await post(server, '/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ message: { content: string }; finish_reason: string }>; usage: object };
    expect(body.choices[0]?.message.content).toBe('hello');
    expect(body.choices[0]?.finish_reason).toBe('stop');
    expect(body.usage).toEqual({ prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ protocol: 'openai-chat', model: 'm', lastUserText: 'hi', toolRounds: 0 });
  });

  test('answers tool calls with JSON-encoded arguments', async () => {
    const server = await start(endlessToolLoop('write_note', { path: 'a.md' }));
    const response = await post(server, '/chat/completions', { model: 'm', messages: [] });
    const body = (await response.json()) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { name: string; arguments: string } }> }; finish_reason: string }>;
    };
    expect(body.choices[0]?.finish_reason).toBe('tool_calls');
    expect(body.choices[0]?.message.tool_calls[0]?.function).toEqual({ name: 'write_note', arguments: '{"path":"a.md"}' });
  });

  test('streams over SSE, usable by the AI SDK streamText with tools', async () => {
    const server = await start(scriptedToolCalls([{ name: 'echo', arguments: { word: 'ping' } }], 'streamed answer'));
    const model = createOpenAICompatible({ name: 'fake', baseURL: server.url, includeUsage: true }).chatModel('m');
    const echoed: string[] = [];
    const result = streamText({
      model,
      prompt: 'say it',
      tools: {
        echo: tool({
          inputSchema: z.object({ word: z.string() }),
          execute: async ({ word }) => {
            echoed.push(word);
            return word;
          },
        }),
      },
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe('streamed answer');
    expect(echoed).toEqual(['ping']);
    expect((await result.totalUsage).totalTokens).toBeGreaterThan(0);
    expect(server.requests.every((request) => request.stream)).toBe(true);
    expect(server.requests[1]?.toolRounds).toBe(1);
    expect(server.requests[1]?.toolResults).toEqual(['ping']);
  });

  test('speaks the Anthropic messages API', async () => {
    const server = await start(replySequence({ toolCalls: [{ name: 'look', arguments: { q: 1 } }], text: 'Looking.' }, { text: 'Done.' }));
    const first = (await (
      await post(server, '/messages', {
        model: 'claude',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'go' }],
        tools: [{ name: 'look', input_schema: {} }],
      })
    ).json()) as {
      content: Array<{ type: string }>;
      stop_reason: string;
    };
    expect(first.content.map((block) => block.type)).toEqual(['text', 'tool_use']);
    expect(first.stop_reason).toBe('tool_use');
    expect(server.requests[0]).toMatchObject({ protocol: 'anthropic-messages', toolNames: ['look'], lastUserText: 'go' });
    const second = (await (await post(server, '/messages', { model: 'claude', messages: [] })).json()) as { stop_reason: string };
    expect(second.stop_reason).toBe('end_turn');
  });

  test('error replies carry the status, a protocol-shaped body and headers', async () => {
    const server = await start(() => ({ status: 429, headers: { 'retry-after': '7' } }));
    const openai = await post(server, '/chat/completions', { model: 'm', messages: [] });
    expect(openai.status).toBe(429);
    expect(openai.headers.get('retry-after')).toBe('7');
    expect(await openai.json()).toMatchObject({ error: { type: 'requests', code: 'rate_limit_exceeded' } });
    const anthropic = await post(server, '/messages', { model: 'm', messages: [] });
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  test('unknown routes are 404 and invalid JSON is 400, neither reaching the script', async () => {
    const server = await start(replyWithText('unused'));
    expect((await post(server, '/embeddings', {})).status).toBe(404);
    const invalid = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{not json' });
    expect(invalid.status).toBe(400);
    expect(server.requests).toHaveLength(0);
  });

  test('a delayed reply is abandoned when the client disconnects, and close() is prompt', async () => {
    // Closed by the test itself, not after it.
    const server = await startFakeModelServer({ script: replyWithText('slow', { delayMs: 30_000 }) });
    const started = performance.now();
    await expect(post(server, '/chat/completions', { model: 'm', messages: [] }, AbortSignal.timeout(50))).rejects.toThrow();
    await server.close();
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test('scriptedToolCalls follows the conversation, not the call count', async () => {
    const script = scriptedToolCalls(
      [
        { name: 'a', arguments: {} },
        [
          { name: 'b', arguments: {} },
          { name: 'c', arguments: {} },
        ],
      ],
      'end',
    );
    const request = (toolRounds: number) => ({ toolRounds }) as Parameters<FakeModelScript>[0];
    expect(await script(request(0), 7)).toEqual({ toolCalls: [{ name: 'a', arguments: {} }] });
    expect(await script(request(1), 0)).toEqual({
      toolCalls: [
        { name: 'b', arguments: {} },
        { name: 'c', arguments: {} },
      ],
    });
    expect(await script(request(2), 0)).toEqual({ text: 'end' });
  });
});
