import { afterEach, describe, expect, test } from 'vitest';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, tool, type LanguageModel, type ModelMessage } from 'ai';
import { z } from 'zod';
import { assertRequestsMatchSdkTypes } from '../helpers/provider-request-types.js';
import { scriptedToolCalls, startFakeModelServer, type FakeModelRequest, type FakeModelServer } from './fake-model-server.js';

/**
 * What the AI SDK providers send to the fakes is what the official SDKs' types allow: tools,
 * tool results, streaming options and cache_control breakpoints included.
 */

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

const script = scriptedToolCalls(
  [
    [
      { name: 'read_file', arguments: { path: 'guides/a.mdx', startLine: 1 } },
      { name: 'search', arguments: { query: 'install' } },
    ],
    { name: 'read_file', arguments: { path: 'guides/b.mdx' } },
  ],
  'Edited both pages.',
);

const tools = {
  read_file: tool({
    description: 'Reads a file.',
    inputSchema: z.object({ path: z.string(), startLine: z.number().int().optional() }),
    execute: async ({ path }) => `contents of ${path}\n${'text '.repeat(300)}`,
  }),
  search: tool({ description: 'Searches.', inputSchema: z.object({ query: z.string() }), execute: async ({ query }) => [{ path: 'a.mdx', match: query }] }),
};

function messages(cached: boolean): ModelMessage[] {
  return [
    { role: 'system', content: 'You edit documentation. '.repeat(200), ...(cached ? { providerOptions: EPHEMERAL } : {}) },
    { role: 'user', content: 'Fix the install guides.', ...(cached ? { providerOptions: EPHEMERAL } : {}) },
  ];
}

async function run(model: (server: FakeModelServer) => LanguageModel, stream: boolean, cached = false): Promise<FakeModelServer> {
  const server = await startFakeModelServer({ script });
  servers.push(server);
  const settings = { model: model(server), messages: messages(cached), tools, stopWhen: stepCountIs(5), maxOutputTokens: 2_000, allowSystemInMessages: true };
  if (stream) {
    const result = streamText(settings);
    expect(await result.text).toBe('Edited both pages.');
  } else {
    expect((await generateText(settings)).text).toBe('Edited both pages.');
  }
  expect(server.requests).toHaveLength(3);
  return server;
}

const anthropic = (server: FakeModelServer) => createAnthropic({ baseURL: server.url, apiKey: 'k' })('claude-test');
const openai = (server: FakeModelServer) => createOpenAI({ baseURL: server.url, apiKey: 'k' }).chat('gpt-test');
const compatible = (server: FakeModelServer) => createOpenAICompatible({ name: 'fake', baseURL: server.url, includeUsage: true }).chatModel('local-model');

describe('the wire matches the official SDK types', () => {
  test('Anthropic, OpenAI and OpenAI-compatible traffic: tools, parallel calls, results, streaming, cache_control', async () => {
    const recorded: FakeModelRequest[] = [];
    for (const [model, stream, cached] of [
      [anthropic, false, true],
      [anthropic, true, true],
      [anthropic, true, false],
      [openai, false, false],
      [openai, true, false],
      [compatible, true, false],
    ] as const) {
      recorded.push(...(await run(model, stream, cached)).requests);
    }
    const anthropicBodies = recorded.filter((request) => request.protocol === 'anthropic-messages').map((request) => request.rawBody);
    expect(anthropicBodies.some((body) => body.includes('"cache_control"'))).toBe(true);
    expect(recorded.some((request) => request.protocol === 'anthropic-messages' && request.stream)).toBe(true);
    expect(recorded.some((request) => request.protocol === 'openai-chat' && request.stream)).toBe(true);
    expect(recorded.some((request) => request.protocol === 'openai-chat' && !request.stream)).toBe(true);
    assertRequestsMatchSdkTypes(recorded);
    // The same real traffic with one property the API does not know fails.
    const tampered = { ...recorded[1]!, body: { ...recorded[1]!.body, max_output_tokens: 5 } };
    expect(() => assertRequestsMatchSdkTypes([recorded[0]!, tampered])).toThrow(/request 1 \(anthropic-messages.*max_output_tokens/);
  });
});
