import type { LanguageModel } from 'ai';
import { describe, expect, test } from 'vitest';
import { resolveBudgets } from '../../src/agent/budgets.js';
import { generateByStreaming } from '../../src/agent/generate-by-streaming.js';
import { askedWaitMs, withModelCallRetry, type ModelCallRetryOptions } from '../../src/agent/model-call-retry.js';
import { isRetryable, ModelError } from '../../src/agent/model-errors.js';
import { resolveLanguageModel } from '../../src/agent/model-provider.js';
import { runAgent, type AgentRunResult } from '../../src/agent/run-agent.js';
import { replySequence, scriptedToolCalls, startFakeModelServer, type FakeReply } from '../fakes/fake-model-server.js';
import { createNoteTools } from './note-tools.js';
import { fakeModelServers } from '../fakes/fake-model-servers.js';

const API_KEY = 'sk-test-retry-0123456789abcdef';
const fakeServer = fakeModelServers();

type ProviderKind = 'openai' | 'anthropic';

/** Streamed, as the agent calls the model: withModelCallRetry(generateByStreaming(model)). */
function modelFor(kind: ProviderKind, url: string): LanguageModel {
  return generateByStreaming(
    kind === 'openai'
      ? resolveLanguageModel('openai:gpt-test', { openaiApiKey: API_KEY, openaiBaseUrl: url })
      : resolveLanguageModel('anthropic:claude-test', { anthropicApiKey: API_KEY, anthropicBaseUrl: url }),
  );
}

/** A sleep that records each wait and returns at once. */
function recordedSleep(): { waits: number[]; sleep: NonNullable<ModelCallRetryOptions['sleep']> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (milliseconds) => {
      waits.push(milliseconds);
    },
  };
}

function run(model: LanguageModel, signal?: AbortSignal): Promise<AgentRunResult> {
  const { tools } = createNoteTools();
  return runAgent({
    model,
    tools,
    system: 'You write notes.',
    messages: [{ role: 'user', content: 'Write notes.' }],
    budgets: resolveBudgets(),
    maxRetries: 0,
    ...(signal === undefined ? {} : { signal }),
  });
}

async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the run to fail');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

const rateLimited = (headers: Record<string, string>): FakeReply => ({ status: 429, headers });
const done: FakeReply = { text: 'Done.' };

describe.each<ProviderKind>(['openai', 'anthropic'])('one model call retried (%s)', (kind) => {
  test('429 with retry-after: 1 is retried after the second it asks for', async () => {
    const server = await fakeServer(replySequence(rateLimited({ 'retry-after': '1' }), done));
    const { waits, sleep } = recordedSleep();
    const outcome = await run(withModelCallRetry(modelFor(kind, server.url), { maxRetries: 4, sleep }));
    expect(outcome.finalMessage).toBe('Done.');
    expect(waits).toEqual([1_000]);
    expect(server.requests).toHaveLength(2);
  });

  test('retry-after-ms wins over retry-after; an HTTP date is waited out from the injected clock', async () => {
    const now = Date.UTC(2026, 11, 1, 12);
    const server = await fakeServer(
      replySequence(rateLimited({ 'retry-after-ms': '250', 'retry-after': '9' }), rateLimited({ 'retry-after': new Date(now + 7_000).toUTCString() }), done),
    );
    const { waits, sleep } = recordedSleep();
    await run(withModelCallRetry(modelFor(kind, server.url), { maxRetries: 4, sleep, now: () => now }));
    expect(waits).toEqual([250, 7_000]);
  });

  test('retry-after: 90 is waited out within the call under the default 120 s limit', async () => {
    const server = await fakeServer(replySequence(rateLimited({ 'retry-after': '90' }), done));
    const { waits, sleep } = recordedSleep();
    const outcome = await run(withModelCallRetry(modelFor(kind, server.url), { maxRetries: 4, sleep }));
    expect(outcome.finalMessage).toBe('Done.');
    expect(waits).toEqual([90_000]);
  });

  test('retry-after: 90 beyond a 60 s limit: no retry here, a retryable error carrying the wait', async () => {
    const server = await fakeServer(replySequence(rateLimited({ 'retry-after': '90' }), done));
    const { waits, sleep } = recordedSleep();
    const error = await rejection(run(withModelCallRetry(modelFor(kind, server.url), { maxRetries: 4, maxWaitMs: 60_000, sleep })));
    expect(error.retryAfterMs).toBe(90_000);
    expect(isRetryable(error)).toBe(true);
    expect(error.providerStatus).toBe(429);
    expect(error.message).toContain('asked to wait 90 s, longer than one model call waits (60 s)');
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  test('a 500 on the fifth request retries that step only: steps 1–4 are not redone', async () => {
    const steps = [1, 2, 3, 4, 5].map((n) => ({ name: 'write_note', arguments: { path: `n${n}`, content: 'x' } }));
    const happy = scriptedToolCalls(steps, 'Wrote five notes.');
    const server = await fakeServer((request, index) => (index === 4 ? { status: 500 } : happy(request, index)));
    const { waits, sleep } = recordedSleep();
    const outcome = await run(withModelCallRetry(modelFor(kind, server.url), { maxRetries: 4, sleep, random: () => 0 }));
    expect(outcome.finalMessage).toBe('Wrote five notes.');
    // Six calls for six steps plus the one retry; the retry carried the same four rounds.
    expect(server.requests.map((request) => request.toolRounds)).toEqual([0, 1, 2, 3, 4, 4, 5]);
    expect(server.requests[5]?.rawBody).toBe(server.requests[4]?.rawBody);
    expect(waits).toEqual([500]);
  });

  test('server errors back off exponentially with jitter, then fail with the count of attempts', async () => {
    const server = await fakeServer(() => ({ status: 503 }));
    const { waits, sleep } = recordedSleep();
    const error = await rejection(run(withModelCallRetry(modelFor(kind, server.url), { maxRetries: 3, sleep, random: () => 0.999 })));
    expect(server.requests).toHaveLength(4);
    expect(waits.map((wait) => Math.round(wait / 100) * 100)).toEqual([1_000, 2_000, 4_000]);
    expect(error.message).toContain('HTTP 503 after 4 attempts');
    expect(isRetryable(error)).toBe(true);
    expect(error.retryAfterMs).toBeUndefined();
  });

  test('a stream cut mid-way is retried, and reported as cut when the retries run out', async () => {
    const cut: FakeReply = { text: 'An answer the connection drops. '.repeat(20), cutAfterEvents: 3 };
    const recovering = await fakeServer(replySequence(cut, done));
    const first = recordedSleep();
    const outcome = await run(withModelCallRetry(modelFor(kind, recovering.url), { maxRetries: 2, sleep: first.sleep }));
    expect(outcome.finalMessage).toBe('Done.');
    expect(recovering.requests).toHaveLength(2);
    expect(first.waits).toHaveLength(1);

    const broken = await fakeServer(() => cut);
    const { waits, sleep } = recordedSleep();
    const error = await rejection(run(withModelCallRetry(modelFor(kind, broken.url), { maxRetries: 2, sleep })));
    expect(broken.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(error.message).toMatch(/^The model provider's stream ended before the answer was complete \(after \d+ parts\)\. Gave up after 3 attempts\.$/);
    expect(isRetryable(error)).toBe(true);
  });

  test('a rejected request (400) and a bad key (401) are not retried', async () => {
    for (const status of [400, 401]) {
      const server = await fakeServer(() => ({ status }));
      const { waits, sleep } = recordedSleep();
      const error = await rejection(run(withModelCallRetry(modelFor(kind, server.url), { maxRetries: 4, sleep })));
      expect(isRetryable(error)).toBe(false);
      expect(error.providerStatus).toBe(status);
      expect(server.requests).toHaveLength(1);
      expect(waits).toEqual([]);
    }
  });

  test('a provider that cannot be reached is retried, then reported as unreachable', async () => {
    const closed = await startFakeModelServer({ script: () => done });
    const url = closed.url;
    await closed.close();
    const { waits, sleep } = recordedSleep();
    const error = await rejection(run(withModelCallRetry(modelFor(kind, url), { maxRetries: 2, sleep })));
    expect(waits).toHaveLength(2);
    expect(error.message).toMatch(/^Could not reach the model provider after 3 attempts/);
    expect(isRetryable(error)).toBe(true);
  });
});

describe('Anthropic', () => {
  const anthropic = (url: string): LanguageModel => modelFor('anthropic', url);

  test('529 overloaded backs off longer than a 500 does', async () => {
    const overloaded: FakeReply = { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };
    const slow = await fakeServer(replySequence(overloaded, overloaded, done));
    const failing = await fakeServer(replySequence({ status: 500 }, { status: 500 }, done));
    const overloadWaits = recordedSleep();
    const serverErrorWaits = recordedSleep();
    await run(withModelCallRetry(anthropic(slow.url), { maxRetries: 4, sleep: overloadWaits.sleep, random: () => 0.999 }));
    await run(withModelCallRetry(anthropic(failing.url), { maxRetries: 4, sleep: serverErrorWaits.sleep, random: () => 0.999 }));
    expect(overloadWaits.waits.map((wait) => Math.round(wait / 100) * 100)).toEqual([5_000, 10_000]);
    expect(serverErrorWaits.waits.map((wait) => Math.round(wait / 100) * 100)).toEqual([1_000, 2_000]);
    expect(slow.requests).toHaveLength(3);
  });

  test('without retry-after, the reset time of the exhausted limit is waited for', async () => {
    const now = Date.UTC(2026, 11, 1, 12);
    const iso = (offset: number): string => new Date(now + offset).toISOString();
    const server = await fakeServer(
      replySequence(
        rateLimited({
          'anthropic-ratelimit-requests-remaining': '40',
          'anthropic-ratelimit-requests-reset': iso(1_000),
          'anthropic-ratelimit-input-tokens-remaining': '0',
          'anthropic-ratelimit-input-tokens-reset': iso(12_000),
        }),
        done,
      ),
    );
    const { waits, sleep } = recordedSleep();
    await run(withModelCallRetry(anthropic(server.url), { maxRetries: 4, sleep, now: () => now }));
    expect(waits).toEqual([12_000]);
  });
});

test('the run stopping during a wait stops the wait at once (real sleep)', async () => {
  const server = await fakeServer(() => rateLimited({ 'retry-after': '30' }));
  const controller = new AbortController();
  const started = performance.now();
  const pending = run(withModelCallRetry(modelFor('openai', server.url), { maxRetries: 4 }), controller.signal);
  setTimeout(() => {
    controller.abort();
  }, 200);
  const error = await pending.then(
    () => null,
    (caught: unknown) => caught as { code?: string },
  );
  expect(error?.code).toBe('cancelled');
  expect(performance.now() - started).toBeLessThan(5_000);
  expect(server.requests).toHaveLength(1);
});

test('retry-after: 1 with the real sleep: the second request comes a second after the first', async () => {
  const sentAt: number[] = [];
  const server = await fakeServer((_request, index) => {
    sentAt.push(performance.now());
    return index === 0 ? rateLimited({ 'retry-after': '1' }) : done;
  });
  await run(withModelCallRetry(modelFor('openai', server.url), { maxRetries: 1 }));
  expect(sentAt).toHaveLength(2);
  expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(1_000);
});

describe('askedWaitMs', () => {
  const now = Date.UTC(2026, 11, 1, 12);
  test('reads each header form, and nothing usable as undefined', () => {
    expect(askedWaitMs({ 'retry-after-ms': '1500.5' }, now)).toBe(1500.5);
    expect(askedWaitMs({ 'retry-after': '2.5' }, now)).toBe(2_500);
    expect(askedWaitMs({ 'retry-after': new Date(now - 5_000).toUTCString() }, now)).toBe(0);
    expect(askedWaitMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(askedWaitMs({}, now)).toBeUndefined();
    // No limit reported as used up: the latest reset.
    expect(
      askedWaitMs(
        { 'anthropic-ratelimit-requests-reset': new Date(now + 3_000).toISOString(), 'anthropic-ratelimit-tokens-reset': new Date(now + 8_000).toISOString() },
        now,
      ),
    ).toBe(8_000);
  });
});

test('wrapped twice, the outer retry leaves alone what the inner one gave up on', async () => {
  const server = await fakeServer(() => ({ status: 503 }));
  const inner = recordedSleep();
  const outer = recordedSleep();
  const model = withModelCallRetry(withModelCallRetry(modelFor('openai', server.url), { maxRetries: 1, sleep: inner.sleep }), {
    maxRetries: 3,
    sleep: outer.sleep,
  });
  const error = await rejection(run(model));
  expect(server.requests).toHaveLength(2);
  expect(inner.waits).toHaveLength(1);
  expect(outer.waits).toEqual([]);
  expect(error.message).toContain('HTTP 503 after 2 attempts');
});

test('a model given by id is returned unchanged', () => {
  expect(withModelCallRetry('openai:gpt-test', { maxRetries: 2 })).toBe('openai:gpt-test');
});
