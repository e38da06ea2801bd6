import type { LanguageModel } from 'ai';
import { describe, expect, test } from 'vitest';
import { resolveBudgets } from '../../src/agent/budgets.js';
import { generateByStreaming } from '../../src/agent/generate-by-streaming.js';
import { isRetryable, ModelError } from '../../src/agent/model-errors.js';
import { resolveLanguageModel } from '../../src/agent/model-provider.js';
import { runAgent, type AgentRunResult } from '../../src/agent/run-agent.js';
import { scriptedToolCalls, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createNoteTools } from './note-tools.js';
import { fakeModelServers } from '../fakes/fake-model-servers.js';

const API_KEY = 'sk-test-streaming-0123456789abcdef';
const fakeServer = fakeModelServers();

type ProviderKind = 'openai' | 'openai-compatible' | 'anthropic';

function modelFor(kind: ProviderKind, server: FakeModelServer): LanguageModel {
  switch (kind) {
    case 'openai':
      return resolveLanguageModel('openai:gpt-test', { openaiApiKey: API_KEY, openaiBaseUrl: server.url });
    case 'openai-compatible':
      return resolveLanguageModel('openai-compatible:fake', { openaiCompatibleBaseUrl: server.url, openaiCompatibleApiKey: API_KEY });
    case 'anthropic':
      return resolveLanguageModel('anthropic:claude-test', { anthropicApiKey: API_KEY, anthropicBaseUrl: server.url });
  }
}

function run(model: LanguageModel, signal?: AbortSignal): { notes: Map<string, string>; result: Promise<AgentRunResult> } {
  const { notes, tools } = createNoteTools();
  const result = runAgent({
    model,
    tools,
    system: 'You write notes.',
    messages: [{ role: 'user', content: 'Write two notes.' }],
    budgets: resolveBudgets(),
    maxRetries: 0,
    ...(signal === undefined ? {} : { signal }),
  });
  return { notes, result };
}

const script = scriptedToolCalls(
  [
    [
      { name: 'write_note', arguments: { path: 'a', content: 'first' } },
      { name: 'write_note', arguments: { path: 'b', content: 'second' } },
    ],
    { name: 'read_note', arguments: { path: 'a' } },
  ],
  'Wrote a and b.',
);

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the run to fail');
    },
    (error: unknown) => error,
  );
}

describe.each<ProviderKind>(['openai', 'openai-compatible', 'anthropic'])('generate served by streaming (%s)', (kind) => {
  test('every request streams, with usage asked for, and the run ends as the unstreamed one does', async () => {
    const plain = await fakeServer(script);
    const streamed = await fakeServer(script);
    const reference = run(modelFor(kind, plain));
    const viaStream = run(generateByStreaming(modelFor(kind, streamed)));
    const [expected, actual] = await Promise.all([reference.result, viaStream.result]);

    expect(plain.requests.map((request) => request.stream)).toEqual([false, false, false]);
    expect(streamed.requests.map((request) => request.stream)).toEqual([true, true, true]);
    // OpenAI's APIs report a stream's usage only when asked; Anthropic's always do.
    if (kind !== 'anthropic') for (const request of streamed.requests) expect(request.body['stream_options']).toEqual({ include_usage: true });
    expect([...viaStream.notes.entries()]).toEqual([...reference.notes.entries()]);
    expect(actual.finalMessage).toBe('Wrote a and b.');
    expect(actual.steps.map((step) => [step.finishReason, step.toolCalls.map((call) => call.toolName)])).toEqual(
      expected.steps.map((step) => [step.finishReason, step.toolCalls.map((call) => call.toolName)]),
    );
    // The usage reached the SDK: streamed answers count as unstreamed ones do (bytes ÷ 4 of
    // each request; the streamed requests carry `stream` and `stream_options` on top).
    expect(actual.usage.outputTokens).toBe(expected.usage.outputTokens);
    expect(actual.usage.inputTokens).toBe(streamed.requests.reduce((sum, request) => sum + Math.ceil(request.rawBody.length / 4), 0));
  });

  test('a stream cut mid-way is reported as exactly that, retryable, with the parts received', async () => {
    const server = await fakeServer(() => ({ text: 'A long answer that the provider never finishes sending. '.repeat(10), cutAfterEvents: 4 }));
    const error = await rejection(run(generateByStreaming(modelFor(kind, server))).result);
    expect(error).toBeInstanceOf(ModelError);
    expect(isRetryable(error)).toBe(true);
    expect((error as ModelError).message).toMatch(/^The model provider's stream ended before the answer was complete \(after \d+ parts\)\.$/);
    expect(server.requests).toHaveLength(1);
  });

  test('a stream cut before its first event is reported as cut too', async () => {
    const server = await fakeServer(() => ({ text: 'never sent', cutAfterEvents: 0 }));
    const error = await rejection(run(generateByStreaming(modelFor(kind, server))).result);
    expect((error as ModelError).message).toContain('stream ended before the answer was complete');
    expect(isRetryable(error)).toBe(true);
  });

  test('cache reads (and the cache writes Anthropic reports) in the stream reach the run usage', async () => {
    const server = await fakeServer(() => ({ text: 'done', usage: { inputTokens: 1_000, outputTokens: 7, cachedInputTokens: 600, cacheWriteTokens: 300 } }));
    const outcome = await run(generateByStreaming(modelFor(kind, server))).result;
    expect(outcome.usage).toMatchObject({ inputTokens: 1_000, outputTokens: 7, cachedInputTokens: 600 });
    if (kind === 'anthropic') expect(outcome.usage.cacheWriteTokens).toBe(300);
  });

  test('a provider silent for longer than the idle timeout is abandoned with a retryable error naming it', async () => {
    const server = await fakeServer(() => ({ text: 'too late', delayMs: 5_000 }));
    const started = performance.now();
    const error = await rejection(run(generateByStreaming(modelFor(kind, server), { idleTimeoutMs: 150 })).result);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(ModelError);
    expect(isRetryable(error)).toBe(true);
    expect((error as ModelError).message).toContain('sent nothing for 0.2 s (the per-step idle timeout');
    expect(elapsed).toBeLessThan(3_000);
    expect(server.requests).toHaveLength(1);
  });

  test('the caller aborting stays a cancel, not a provider error', async () => {
    const server = await fakeServer(() => ({ text: 'never', delayMs: 5_000 }));
    const controller = new AbortController();
    const pending = run(generateByStreaming(modelFor(kind, server)), controller.signal).result;
    setTimeout(() => {
      controller.abort();
    }, 100);
    const error = await rejection(pending);
    expect((error as { code?: string }).code).toBe('cancelled');
  });

  test('an HTTP error before the stream passes on with its status, mapped as without streaming', async () => {
    const server = await fakeServer(() => ({ status: 503, headers: { 'retry-after': '3' } }));
    const error = await rejection(run(generateByStreaming(modelFor(kind, server))).result);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).providerStatus).toBe(503);
    expect(isRetryable(error)).toBe(true);
  });
});

test('a model given by id is returned unchanged', () => {
  expect(generateByStreaming('openai:gpt-test')).toBe('openai:gpt-test');
});
