import { describe, expect, test } from 'vitest';
import { DocwrightError } from '../../src/core/errors.js';
import { resolveBudgets } from '../../src/agent/budgets.js';
import { isRetryable } from '../../src/agent/model-errors.js';
import { resolveLanguageModel, type ModelCredentials } from '../../src/agent/model-provider.js';
import { buildSystemPrompt, buildTurnMessages } from '../../src/agent/prompts.js';
import { runAgent, type AgentStepEvent, type RunAgentOptions } from '../../src/agent/run-agent.js';
import { endlessToolLoop, failWith, replySequence, scriptedToolCalls, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createNoteTools } from './note-tools.js';
import { fakeModelServers } from '../fakes/fake-model-servers.js';

const API_KEY = 'sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const fakeServer = fakeModelServers();

function compatibleCredentials(server: FakeModelServer): ModelCredentials {
  return { openaiCompatibleBaseUrl: server.url, openaiCompatibleApiKey: API_KEY };
}

function options(server: FakeModelServer, overrides: Partial<RunAgentOptions> = {}): RunAgentOptions & { notes: Map<string, string> } {
  const { notes, tools } = createNoteTools();
  return {
    notes,
    model: resolveLanguageModel('openai-compatible:fake', compatibleCredentials(server)),
    tools,
    system: buildSystemPrompt({ projectName: 'Acme Docs' }),
    messages: buildTurnMessages([], 'Add a note about installation.'),
    budgets: resolveBudgets(),
    maxRetries: 0,
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<DocwrightError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the run to fail');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DocwrightError);
  return error as DocwrightError;
}

describe('runAgent against the fake OpenAI-compatible server', () => {
  test('runs a scripted tool call, then returns the final text with step summaries and usage', async () => {
    const server = await fakeServer(
      scriptedToolCalls([{ name: 'write_note', arguments: { path: 'install.md', content: 'npm i docwright' } }], 'Added install.md.'),
    );
    const events: AgentStepEvent[] = [];
    const run = options(server, { onStep: (event) => void events.push(event) });
    const result = await runAgent(run);

    expect(result.finalMessage).toBe('Added install.md.');
    expect(run.notes.get('install.md')).toBe('npm i docwright');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.toolCalls).toEqual([{ toolName: 'write_note', argumentSummary: 'install.md', ok: true }]);
    expect(result.steps[1]?.toolCalls).toEqual([]);

    // The model saw the tool's result in the second request.
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.toolResults.join('')).toContain('install.md');

    // Usage is what the server reported, summed over both calls.
    const reported = server.requests.map((request) => Math.ceil(request.rawBody.length / 4));
    expect(result.usage.inputTokens).toBe(reported[0]! + reported[1]!);
    expect(result.usage.totalTokens).toBe(result.usage.inputTokens + result.usage.outputTokens);
    expect(events.map((event) => event.stepNumber)).toEqual([0, 1]);
    expect(events[1]?.totalUsage).toEqual(result.usage);
  });

  test('sends the tools, the system prompt and the conversation in the request', async () => {
    const server = await fakeServer(scriptedToolCalls([], 'Nothing to do.'));
    const messages = buildTurnMessages([{ prompt: 'First request', finalMessage: 'Did the first thing.' }], 'Second request');
    await runAgent(options(server, { messages }));

    const request = server.requests[0]!;
    expect(request.toolNames.sort()).toEqual(['read_note', 'write_note']);
    expect(Array.isArray(request.body['tools'])).toBe(true);
    const sent = request.body['messages'] as Array<{ role: string; content: unknown }>;
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(String(sent[0]?.content)).toContain('check_docs');
    expect(request.lastUserText).toBe('Second request');
  });

  test('a failing tool is reported as a failed call and shown to the model; the run continues', async () => {
    const server = await fakeServer(
      scriptedToolCalls(
        [
          { name: 'write_note', arguments: { path: '../etc/passwd', content: 'x' } },
          { name: 'read_note', arguments: { path: 'missing.md' } },
        ],
        'Could not write.',
      ),
    );
    const result = await runAgent(options(server));
    expect(result.finalMessage).toBe('Could not write.');
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({ toolName: 'write_note', ok: false });
    expect(result.steps[0]?.toolCalls[0]?.error).toContain('escapes the notebook');
    expect(result.steps[1]?.toolCalls[0]).toEqual({ toolName: 'read_note', argumentSummary: 'missing.md', ok: false, error: 'no note at missing.md' });
    expect(server.requests[1]?.toolResults.join('')).toContain('escapes the notebook');
  });

  test('an endless tool loop gets a wrap-up step without tools at its step budget, and the run returns what it did', async () => {
    const server = await fakeServer((request) =>
      request.body['tool_choice'] === 'none'
        ? { text: 'Stopped: wrote loop.md.' }
        : { toolCalls: [{ name: 'write_note', arguments: { path: 'loop.md', content: 'again' } }] },
    );
    const run = options(server, { budgets: resolveBudgets({ maxSteps: 3 }) });
    const result = await runAgent(run);
    expect(result.stoppedBy).toBe('steps');
    expect(result.finalMessage).toBe('Stopped: wrote loop.md.');
    expect(run.notes.get('loop.md')).toBe('again');
    // Three steps, then the wrap-up: tool choice none, and a note saying why.
    expect(server.requests.map((request) => request.body['tool_choice'] ?? 'auto')).toEqual(['auto', 'auto', 'auto', 'none']);
    expect(server.requests[3]?.rawBody).toContain('reached its step budget');
  });

  test('a model that calls a tool in its wrap-up step anyway still ends the run with its work', async () => {
    const server = await fakeServer(endlessToolLoop('write_note', { path: 'loop.md', content: 'again' }));
    const run = options(server, { budgets: resolveBudgets({ maxSteps: 3 }) });
    const result = await runAgent(run);
    expect(result.stoppedBy).toBe('steps');
    expect(server.requests).toHaveLength(4);
    expect(run.notes.get('loop.md')).toBe('again');
  });

  test('finishing on the last allowed step is not a budget stop', async () => {
    const server = await fakeServer(scriptedToolCalls([{ name: 'write_note', arguments: { path: 'a.md', content: 'a' } }], 'Done.'));
    const result = await runAgent(options(server, { budgets: resolveBudgets({ maxSteps: 2 }) }));
    expect(result.finalMessage).toBe('Done.');
    expect(result.stoppedBy).toBeNull();
  });

  test('the token budget gives a wrap-up step once the next step would not fit, never a step past it', async () => {
    const server = await fakeServer(endlessToolLoop('write_note', { path: 'loop.md', content: 'again' }, { usage: { inputTokens: 600, outputTokens: 100 } }));
    const result = await runAgent(options(server, { budgets: resolveBudgets({ maxTokens: 1500 }) }));
    expect(result.stoppedBy).toBe('tokens');
    expect(result.usage.totalTokens).toBeLessThanOrEqual(2_100);
    expect(server.requests.at(-1)?.body['tool_choice']).toBe('none');
    expect(server.requests.length).toBeLessThanOrEqual(3);
  });

  test('a step still running past the time budget and its grace is aborted; the run returns with its work', async () => {
    const server = await fakeServer(() => ({ text: 'too late', delayMs: 10_000 }));
    const started = performance.now();
    const result = await runAgent(options(server, { budgets: resolveBudgets({ maxDurationMs: 200 }) }));
    expect(result.stoppedBy).toBe('duration');
    // 200 ms, then the grace of a second at least.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_100);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test('a run past its time budget between steps gets its wrap-up step', async () => {
    let clock = 0;
    const server = await fakeServer((request) => {
      clock += 1_000;
      return request.body['tool_choice'] === 'none'
        ? { text: 'Out of time.' }
        : { toolCalls: [{ name: 'write_note', arguments: { path: 'a.md', content: 'a' } }] };
    });
    const result = await runAgent(options(server, { budgets: resolveBudgets({ maxDurationMs: 2_500 }), now: () => clock }));
    expect(result.stoppedBy).toBe('duration');
    expect(result.finalMessage).toBe('Out of time.');
    expect(server.requests).toHaveLength(4);
  });

  test('HTTP 500 after the SDK retries is a retryable model_error', async () => {
    const server = await fakeServer(failWith(500, { headers: { 'retry-after-ms': '0' } }));
    const error = await rejection(runAgent(options(server, { maxRetries: 2 })));
    expect(error.code).toBe('model_error');
    expect(isRetryable(error)).toBe(true);
    expect(error.message).toContain('HTTP 500');
    expect(server.requests).toHaveLength(3);
  });

  test('a transient 500 is absorbed by the SDK retry', async () => {
    const server = await fakeServer(replySequence({ status: 503, headers: { 'retry-after-ms': '0' } }, { text: 'Recovered.' }));
    const result = await runAgent(options(server, { maxRetries: 2 }));
    expect(result.finalMessage).toBe('Recovered.');
    expect(server.requests).toHaveLength(2);
  });

  test('HTTP 401 is a non-retryable model_error whose message carries no key', async () => {
    const server = await fakeServer(failWith(401, { body: { error: { message: `Incorrect API key provided: ${API_KEY}`, type: 'invalid_request_error' } } }));
    const error = await rejection(runAgent(options(server, { maxRetries: 2 })));
    expect(error.code).toBe('model_error');
    expect(isRetryable(error)).toBe(false);
    expect(error.message).toContain('401');
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  test('an unreachable provider is a retryable model_error', async () => {
    const server = await startFakeModelServer({ script: () => ({ text: 'unused' }) });
    await server.close();
    const error = await rejection(runAgent(options(server)));
    expect(error.code).toBe('model_error');
    expect(isRetryable(error)).toBe(true);
  });

  test("aborting the caller's signal cancels a run in flight", async () => {
    const controller = new AbortController();
    const server = await fakeServer((request) => {
      if (request.toolRounds === 0) return { toolCalls: [{ name: 'write_note', arguments: { path: 'a.md', content: 'a' } }] };
      setTimeout(() => controller.abort(), 20);
      return { text: 'never delivered', delayMs: 10_000 };
    });
    const started = performance.now();
    const error = await rejection(runAgent(options(server, { signal: controller.signal })));
    expect(error.code).toBe('cancelled');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(2);
  });

  test('an already aborted signal cancels before calling the model', async () => {
    const server = await fakeServer(() => ({ text: 'unused' }));
    const error = await rejection(runAgent(options(server, { signal: AbortSignal.abort() })));
    expect(error.code).toBe('cancelled');
    expect(server.requests).toHaveLength(0);
  });

  test('an error thrown by onStep stops the run and is rethrown', async () => {
    const server = await fakeServer(endlessToolLoop('write_note', { path: 'loop.md', content: 'again' }));
    const failure = new Error('could not record progress');
    const error = await runAgent(options(server, { onStep: () => Promise.reject(failure) })).catch((caught: unknown) => caught);
    expect(error).toBe(failure);
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });

  test('no credential reaches the model: the key is only in the authorization header', async () => {
    const server = await fakeServer(scriptedToolCalls([{ name: 'write_note', arguments: { path: 'a.md', content: 'a' } }], 'Done.'));
    await runAgent(options(server));
    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) {
      expect(request.headers['authorization']).toBe(`Bearer ${API_KEY}`);
      expect(request.rawBody).not.toContain(API_KEY);
      expect(request.rawBody).not.toContain(API_KEY.slice(8));
    }
  });
});

describe('runAgent through the other providers', () => {
  test('anthropic: speaks the messages API end to end', async () => {
    const server = await fakeServer(scriptedToolCalls([{ name: 'write_note', arguments: { path: 'a.md', content: 'from claude' } }], 'Wrote a.md.'));
    const run = options(server, {
      model: resolveLanguageModel('anthropic:claude-test', { anthropicApiKey: API_KEY, anthropicBaseUrl: server.url }),
    });
    const result = await runAgent(run);
    expect(result.finalMessage).toBe('Wrote a.md.');
    expect(run.notes.get('a.md')).toBe('from claude');
    expect(server.requests.map((request) => request.protocol)).toEqual(['anthropic-messages', 'anthropic-messages']);
    expect(server.requests[0]?.model).toBe('claude-test');
    expect(server.requests[0]?.headers['x-api-key']).toBe(API_KEY);
    expect(server.requests[0]?.toolNames.sort()).toEqual(['read_note', 'write_note']);
    expect(server.requests.every((request) => !request.rawBody.includes(API_KEY))).toBe(true);
  });

  test('openai: uses chat completions at the configured base URL', async () => {
    const server = await fakeServer(scriptedToolCalls([{ name: 'write_note', arguments: { path: 'b.md', content: 'from gpt' } }], 'Wrote b.md.'));
    const run = options(server, { model: resolveLanguageModel('openai:gpt-test', { openaiApiKey: API_KEY, openaiBaseUrl: server.url }) });
    const result = await runAgent(run);
    expect(result.finalMessage).toBe('Wrote b.md.');
    expect(run.notes.get('b.md')).toBe('from gpt');
    expect(server.requests[0]?.protocol).toBe('openai-chat');
    expect(server.requests[0]?.model).toBe('gpt-test');
    expect(server.requests[0]?.headers['authorization']).toBe(`Bearer ${API_KEY}`);
  });

  test('anthropic: 401 maps to a non-retryable model_error', async () => {
    const server = await fakeServer(failWith(401));
    const error = await rejection(
      runAgent(options(server, { model: resolveLanguageModel('anthropic:claude-test', { anthropicApiKey: API_KEY, anthropicBaseUrl: server.url }) })),
    );
    expect(error.code).toBe('model_error');
    expect(isRetryable(error)).toBe(false);
  });
});
