import { wrapLanguageModel, type LanguageModel } from 'ai';
import { afterEach, describe, expect, test } from 'vitest';
import { resolveBudgets } from '../../src/agent/budgets.js';
import { withDeferredSystem } from '../../src/agent/deferred-system-prompt.js';
import { resolveLanguageModel } from '../../src/agent/model-provider.js';
import { runAgent } from '../../src/agent/run-agent.js';
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createNoteTools } from './note-tools.js';

const GUESS = 'You are Docwright. (No repository guidance.)';
const REAL = 'You are Docwright. <repository-guidance path="AGENTS.md">Sign every note.</repository-guidance>';

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * A model that, given the real prompt, writes a signed note and finishes; given the guess,
 * writes an unsigned one. `onRequest` sees every request as the server receives it.
 */
async function start(
  options: { guessReplyDelayMs?: number; onRequest?: (index: number) => void } = {},
): Promise<{ server: FakeModelServer; model: LanguageModel }> {
  const script: FakeModelScript = (request, index) => {
    options.onRequest?.(index);
    const real = request.systemText === REAL;
    if (request.toolRounds > 0) return { text: real ? 'RIGHT' : 'WRONG', usage: { inputTokens: 5, outputTokens: 1 } };
    return {
      toolCalls: [{ name: 'write_note', arguments: { path: real ? 'signed' : 'unsigned', content: 'note' } }],
      usage: real ? { inputTokens: 7, outputTokens: 3 } : { inputTokens: 100, outputTokens: 10 },
      ...(real ? {} : { delayMs: options.guessReplyDelayMs ?? 0 }),
    };
  };
  const server = await startFakeModelServer({ script });
  servers.push(server);
  return {
    server,
    model: resolveLanguageModel('openai-compatible:fake', { openaiCompatibleBaseUrl: server.url, openaiCompatibleApiKey: 'sk-test-deferred-0123456789' }),
  };
}

function run(model: LanguageModel, signal?: AbortSignal): { notes: Map<string, string>; result: ReturnType<typeof runAgent> } {
  const { notes, tools } = createNoteTools();
  const result = runAgent({
    model,
    tools,
    system: GUESS,
    messages: [{ role: 'user', content: 'Write a note.' }],
    budgets: resolveBudgets(),
    maxRetries: 0,
    ...(signal ? { signal } : {}),
  });
  return { notes, result };
}

describe('a system prompt known only after the first request went out', () => {
  test('the bet holds: the first request goes out before the prompt is known, and its answer is used', async () => {
    const system = deferred<string>();
    const firstRequest = deferred<undefined>();
    const { server, model } = await start({ onRequest: () => firstRequest.resolve(undefined) });
    const wrapped = withDeferredSystem({ model, system: system.promise, speculative: GUESS })!;
    const { notes, result } = run(wrapped);
    // Not resolved yet: the request must not wait for it.
    await firstRequest.promise;
    system.resolve(GUESS);
    const outcome = await result;
    expect(server.requests.map((request) => request.systemText)).toEqual([GUESS, GUESS]);
    expect([...notes.keys()]).toEqual(['unsigned']);
    expect(outcome.finalMessage).toBe('WRONG');
  });

  test('the bet loses while the first request is in flight: it is aborted and sent again with the real prompt', async () => {
    const system = deferred<string>();
    const { server, model } = await start({ guessReplyDelayMs: 120_000, onRequest: (index) => index === 0 && system.resolve(REAL) });
    const { notes, result } = run(withDeferredSystem({ model, system: system.promise, speculative: GUESS })!);
    const outcome = await result;
    expect(server.requests.map((request) => request.systemText)).toEqual([GUESS, REAL, REAL]);
    expect([...notes.keys()]).toEqual(['signed']);
    expect(outcome.finalMessage).toBe('RIGHT');
    // The aborted request never answered: only the real ones are counted.
    expect(outcome.usage.inputTokens).toBe(7 + 5);
  });

  test('the bet loses after the guess was answered: the answer is dropped (no tool runs on it) and its tokens still count', async () => {
    const system = deferred<string>();
    const { server, model } = await start();
    // Resolve the prompt only once the guessed answer has reached the client.
    const observed = wrapLanguageModel({
      model: model as Parameters<typeof wrapLanguageModel>[0]['model'],
      middleware: {
        specificationVersion: 'v3',
        wrapGenerate: async ({ doGenerate }) => {
          const answer = await doGenerate();
          system.resolve(REAL);
          return answer;
        },
      },
    });
    const { notes, result } = run(withDeferredSystem({ model: observed, system: system.promise, speculative: GUESS })!);
    const outcome = await result;
    expect(server.requests.map((request) => request.systemText)).toEqual([GUESS, REAL, REAL]);
    expect([...notes.keys()]).toEqual(['signed']);
    expect(outcome.finalMessage).toBe('RIGHT');
    expect(outcome.usage.inputTokens).toBe(100 + 7 + 5);
    expect(outcome.usage.outputTokens).toBe(10 + 3 + 1);
  });

  test('without a bet, nothing is sent until the prompt is known', async () => {
    const system = deferred<string>();
    const { server, model } = await start();
    const { notes, result } = run(withDeferredSystem({ model, system: system.promise, speculative: null })!);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.requests).toHaveLength(0);
    system.resolve(REAL);
    expect((await result).finalMessage).toBe('RIGHT');
    expect(server.requests.map((request) => request.systemText)).toEqual([REAL, REAL]);
    expect([...notes.keys()]).toEqual(['signed']);
  });

  test('a run cancelled while it waits for the prompt stops at once', async () => {
    const { server, model } = await start();
    const controller = new AbortController();
    const { result } = run(withDeferredSystem({ model, system: new Promise<string>(() => undefined), speculative: null })!, controller.signal);
    controller.abort();
    await expect(result).rejects.toMatchObject({ code: 'cancelled' });
    expect(server.requests).toHaveLength(0);
  });

  test('a model given by id cannot be wrapped: the caller must wait itself', () => {
    expect(withDeferredSystem({ model: 'openai/gpt-5', system: Promise.resolve(REAL), speculative: GUESS })).toBeNull();
  });
});
