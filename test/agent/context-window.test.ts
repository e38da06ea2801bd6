import { tool, type ModelMessage } from 'ai';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { resolveBudgets } from '../../src/agent/budgets.js';
import { ContextWindow, contextLimitsFor } from '../../src/agent/context-window.js';
import { resolveLanguageModel } from '../../src/agent/model-provider.js';
import { buildTurnMessages } from '../../src/agent/prompts.js';
import { runAgent } from '../../src/agent/run-agent.js';
import { generateByStreaming } from '../../src/agent/generate-by-streaming.js';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { assertRequestsMatchSdkTypes } from '../helpers/provider-request-types.js';

/** One step of a run: the model reads a page, the tool answers with its text. */
function readStep(index: number, characters: number): ModelMessage[] {
  const id = `call_${index}`;
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `guides/page-${index}.mdx` } }] },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'json', value: { totalLines: 400, content: 'x'.repeat(characters) } } },
      ],
    },
  ];
}

function conversation(steps: number, characters: number): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'user', content: 'Explain the guides.' }];
  for (let index = 0; index < steps; index += 1) messages.push(...readStep(index, characters));
  return messages;
}

const serialized = (messages: readonly ModelMessage[]): string => JSON.stringify(messages);

describe('ContextWindow', () => {
  test('old results become stubs once a request passes the target; the newest step stays whole', () => {
    const window = new ContextWindow({ targetTokens: 10_000, limitTokens: 50_000 }, 1, 2_000);
    const messages = conversation(12, 8_000);
    const { messages: sent, estimatedTokens, fits } = window.condense(messages);
    expect(fits).toBe(true);
    expect(estimatedTokens).toBeLessThanOrEqual(10_000);
    const text = serialized(sent);
    expect(text).toContain('Earlier result of read_file guides/page-0.mdx (totalLines 400): ');
    expect(text).toContain('Call the tool again if you need it.');
    // The newest step's result is what the model acts on next.
    expect(serialized(sent.slice(-1))).toContain('x'.repeat(8_000));
    // The prompt (pinned) is never touched, and the SDK's own messages are not changed.
    expect(sent[0]).toEqual({ role: 'user', content: 'Explain the guides.' });
    expect(serialized(messages)).not.toContain('Earlier result');
  });

  test('between strides every request extends the one before byte for byte (what prompt caching needs)', () => {
    const window = new ContextWindow({ targetTokens: 20_000, limitTokens: 100_000 }, 1, 2_000);
    const requests: string[] = [];
    let condensations = 0;
    let previous = 0;
    for (let steps = 1; steps <= 40; steps += 1) {
      const sent = window.condense(conversation(steps, 6_000)).messages;
      const stubs = serialized(sent).split('Earlier result').length - 1;
      if (stubs !== previous) condensations += 1;
      else if (requests.length > 0) expect(serialized(sent).startsWith(requests.at(-1)!.slice(0, -1))).toBe(true);
      previous = stubs;
      requests.push(serialized(sent));
    }
    // 40 steps of 1,500 tokens each against a 20k target: a handful of strides, not one per step.
    expect(condensations).toBeGreaterThan(1);
    expect(condensations).toBeLessThanOrEqual(8);
  });

  test('a window too small for the stubs drops whole early steps, keeping every result with its call', () => {
    const window = new ContextWindow({ targetTokens: 1_000, limitTokens: 3_000 }, 1, 500);
    const { messages: sent, fits } = window.condense(conversation(40, 4_000));
    expect(fits).toBe(true);
    const calls = new Set<string>();
    for (const message of sent) {
      if (message.role === 'assistant' && typeof message.content !== 'string') {
        for (const part of message.content) if (part.type === 'tool-call') calls.add(part.toolCallId);
      }
      if (message.role === 'tool') for (const part of message.content) if (part.type === 'tool-result') expect(calls.has(part.toolCallId)).toBe(true);
    }
    expect(serialized(sent)).toMatch(/\[\d+ earlier steps were removed to fit the context window\.\]/);
  });

  test('the estimate follows what the provider reports', () => {
    const window = new ContextWindow({ targetTokens: 100_000, limitTokens: 100_000 }, 1, 0);
    const messages = conversation(2, 4_000);
    const before = window.tokensOf(messages);
    window.calibrate(before, before * 2);
    expect(window.tokensOf(messages)).toBe(Math.ceil(before * 2));
    // A wild report is clamped: the estimate cannot be talked into nothing.
    window.calibrate(before, 1);
    expect(window.tokensOf(messages)).toBe(Math.ceil(before * 0.5));
  });

  test('limits follow the model: a 200k window keeps a working context, an 8k one whatever fits', () => {
    expect(contextLimitsFor(200_000, 16_384)).toEqual({ limitTokens: 173_616, targetTokens: 36_000 });
    expect(contextLimitsFor(8_192, 2_048)).toEqual({ limitTokens: 5_734, targetTokens: 3_440 });
  });
});

describe('a long run through the Anthropic Messages API', () => {
  let server: FakeModelServer | undefined;
  afterEach(async () => server?.close());

  test('requests stay bounded, carry cache marks the provider reads from, and match the SDK types', async () => {
    const page = (index: number): string => `# Page ${index}\n\n${'Documentation text that a reader needs. '.repeat(400)}`;
    server = await startFakeModelServer({
      script: (request) =>
        request.toolRounds < 30 ? { toolCalls: [{ name: 'read_page', arguments: { index: request.toolRounds } }] } : { text: 'Read all thirty pages.' },
    });
    const tools = {
      read_page: tool({
        description: 'Read a page.',
        inputSchema: z.object({ index: z.number() }),
        execute: ({ index }) => Promise.resolve({ content: page(index) }),
      }),
    };
    const model = generateByStreaming(
      resolveLanguageModel('anthropic:claude-sonnet-5-5', { anthropicApiKey: 'sk-ant-test-0000000000', anthropicBaseUrl: server.url }),
    );
    const result = await runAgent({
      model,
      tools,
      system: 'You read documentation. '.repeat(300),
      messages: buildTurnMessages([], 'Read the pages.'),
      budgets: resolveBudgets(),
      context: contextLimitsFor(200_000, 16_384),
      maxOutputTokens: 16_384,
      maxRetries: 0,
    });
    expect(result.stoppedBy).toBeNull();
    expect(result.finalMessage).toBe('Read all thirty pages.');
    const sizes = server.requests.map((request) => request.estimatedInputTokens);
    // Unbounded, the last request would hold thirty 4k-token pages.
    expect(Math.max(...sizes)).toBeLessThan(36_000 * 1.2);
    const body = server.requests.at(-1)!.body as { system: Array<{ cache_control?: unknown }>; max_tokens: number; stream: boolean };
    expect(body.system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    expect(body.max_tokens).toBe(16_384);
    expect(body.stream).toBe(true);
    const read = server.requests.reduce((sum, request) => sum + (request.reportedUsage?.cacheReadTokens ?? 0), 0);
    const input = server.requests.reduce((sum, request) => sum + request.estimatedInputTokens, 0);
    // Most of what is sent is read from the cache, not paid in full.
    expect(read / input).toBeGreaterThan(0.6);
    assertRequestsMatchSdkTypes(server.requests);
  });
});
