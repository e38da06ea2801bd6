import { afterEach, describe, expect, test } from 'vitest';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, type ModelMessage } from 'ai';
import { replyWithText, startFakeModelServer, type FakeModelServer, type FakeReportedUsage } from './fake-model-server.js';

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: { promptCaching?: boolean; usage?: { inputTokens: number; outputTokens: number } } = {}): Promise<FakeModelServer> {
  const server = await startFakeModelServer({
    script: replyWithText('Noted.', options.usage === undefined ? {} : { usage: options.usage }),
    ...(options.promptCaching === undefined ? {} : { promptCaching: options.promptCaching }),
  });
  servers.push(server);
  return server;
}

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;
/** About 2,000 tokens at bytes ÷ 4: above the 1,024-token minimum. */
const LONG_SYSTEM = 'You edit documentation. '.repeat(340);

function conversation(turns: number, options: { system?: string; marked?: boolean } = {}): ModelMessage[] {
  const marked = options.marked ?? true;
  const messages: ModelMessage[] = [{ role: 'system', content: options.system ?? LONG_SYSTEM, ...(marked ? { providerOptions: EPHEMERAL } : {}) }];
  for (let turn = 0; turn < turns; turn += 1) {
    if (turn > 0) messages.push({ role: 'assistant', content: `Answer ${turn}.` });
    messages.push({ role: 'user', content: `Question ${turn}: ${'details '.repeat(40)}` });
  }
  // The breakpoint moves to the newest message each turn, as an agent loop places it.
  if (marked) messages[messages.length - 1] = { ...messages[messages.length - 1]!, providerOptions: EPHEMERAL };
  return messages;
}

async function askClaude(server: FakeModelServer, messages: ModelMessage[]) {
  return generateText({ model: createAnthropic({ baseURL: server.url, apiKey: 'k' })('claude-test'), messages, maxOutputTokens: 100 });
}

function sum(usage: FakeReportedUsage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

describe('fake prompt caching: Anthropic', () => {
  test('a breakpoint writes its prefix; the next turn reads it through a moved breakpoint and writes the rest', async () => {
    const server = await start();
    const first = await askClaude(server, conversation(1));
    const second = await askClaude(server, conversation(2));
    const [one, two] = server.requests.map((request) => request.reportedUsage!);
    expect(one!.cacheReadTokens).toBe(0);
    expect(one!.cacheWriteTokens).toBeGreaterThan(1024);
    // The second request's prefix through the first user message is the one the first wrote.
    expect(two!.cacheReadTokens).toBe(one!.cacheWriteTokens);
    expect(two!.cacheWriteTokens).toBeGreaterThan(0);
    expect(two!.cacheWriteTokens).toBeLessThan(200);
    for (const request of server.requests) expect(sum(request.reportedUsage!)).toBe(request.estimatedInputTokens);
    // The AI SDK reads the same figures off the wire.
    expect(first.usage.inputTokenDetails).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: one!.cacheWriteTokens, noCacheTokens: one!.inputTokens });
    expect(second.usage.inputTokenDetails).toMatchObject({ cacheReadTokens: two!.cacheReadTokens, cacheWriteTokens: two!.cacheWriteTokens });
    expect(second.usage.inputTokens).toBe(server.requests[1]!.estimatedInputTokens);
  });

  test('nothing is cached without breakpoints, below 1,024 tokens, or when the prefix changed', async () => {
    const server = await start();
    await askClaude(server, conversation(1, { marked: false }));
    await askClaude(server, conversation(2, { marked: false }));
    await askClaude(server, conversation(1, { system: 'Short system prompt.' }));
    await askClaude(server, conversation(1));
    await askClaude(server, conversation(2, { system: LONG_SYSTEM.replace('You edit', 'You review') }));
    const usage = server.requests.map((request) => request.reportedUsage!);
    expect(usage.map((entry) => entry.cacheReadTokens)).toEqual([0, 0, 0, 0, 0]);
    expect(usage.map((entry) => entry.cacheWriteTokens > 0)).toEqual([false, false, false, true, true]);
  });

  test('the same prefix on another model is not a hit', async () => {
    const server = await start();
    await askClaude(server, conversation(1));
    await generateText({ model: createAnthropic({ baseURL: server.url, apiKey: 'k' })('claude-other'), messages: conversation(1), maxOutputTokens: 100 });
    await askClaude(server, conversation(1));
    expect(server.requests.map((request) => request.reportedUsage!.cacheReadTokens > 0)).toEqual([false, false, true]);
  });
});

describe('fake prompt caching: OpenAI automatic prefix caching', () => {
  const ask = (server: FakeModelServer, messages: ModelMessage[]) =>
    generateText({ model: createOpenAICompatible({ name: 'fake', baseURL: server.url }).chatModel('gpt-test'), messages });

  test('the prefix shared with an earlier request counts in 128-token steps from 1,024 tokens', async () => {
    const server = await start();
    await ask(server, conversation(1, { marked: false }));
    const second = await ask(server, conversation(3, { marked: false }));
    await ask(server, conversation(1, { system: 'Short.', marked: false }));
    await ask(server, conversation(1, { system: 'Short.', marked: false }));
    const [one, two, short, shortAgain] = server.requests.map((request) => request.reportedUsage!);
    expect(one!.cacheReadTokens).toBe(0);
    expect(two!.cacheReadTokens).toBeGreaterThanOrEqual(1024);
    expect(two!.cacheReadTokens % 128).toBe(0);
    expect(two!.cacheReadTokens).toBeLessThanOrEqual(server.requests[0]!.estimatedInputTokens);
    expect(two!.cacheWriteTokens).toBe(0);
    expect(short!.cacheReadTokens).toBe(0);
    expect(shortAgain!.cacheReadTokens).toBe(0);
    for (const request of server.requests) expect(sum(request.reportedUsage!)).toBe(request.estimatedInputTokens);
    expect(second.usage.inputTokenDetails.cacheReadTokens).toBe(two!.cacheReadTokens);
    expect(second.usage.inputTokens).toBe(server.requests[1]!.estimatedInputTokens);
  });
});

describe('fake prompt caching: switches', () => {
  test('a reply with explicit usage wins; promptCaching: false reports no cache', async () => {
    const explicit = await start({ usage: { inputTokens: 10, outputTokens: 2 } });
    await askClaude(explicit, conversation(1));
    await askClaude(explicit, conversation(1));
    expect(explicit.requests[1]!.reportedUsage).toEqual({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const uncached = await start({ promptCaching: false });
    await askClaude(uncached, conversation(1));
    await askClaude(uncached, conversation(1));
    expect(uncached.requests[1]!.reportedUsage).toMatchObject({
      inputTokens: uncached.requests[1]!.estimatedInputTokens,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });
});
