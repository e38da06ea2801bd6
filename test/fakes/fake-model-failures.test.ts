import { describe, expect, test } from 'vitest';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText, type LanguageModel } from 'ai';
import { overloaded, rateLimited, replySequence, replyWithText, type FakeModelServer } from './fake-model-server.js';
import { fakeModelServers } from './fake-model-servers.js';

const start = fakeModelServers();

function post(server: FakeModelServer, path: string, body: object): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Reads a body until it ends or breaks: the text received, and whether it broke. */
async function readUntilBroken(response: Response): Promise<{ text: string; broken: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, broken: false };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, broken: true };
  }
}

const REPLY = { text: 'A reply long enough to stream in more than one text delta, so a cut can land inside it.' };
const anthropic = (server: FakeModelServer): LanguageModel => createAnthropic({ baseURL: server.url, apiKey: 'k' })('claude-test');
const openai = (server: FakeModelServer): LanguageModel => createOpenAICompatible({ name: 'fake', baseURL: server.url, includeUsage: true }).chatModel('m');

describe('fake model server failures', () => {
  test.each([
    ['anthropic-messages', '/messages', 3],
    ['openai-chat', '/chat/completions', 2],
  ])('cutAfterEvents writes that many SSE events, then breaks the connection (%s)', async (_protocol, path, cut) => {
    const server = await start(replyWithText(REPLY.text, { cutAfterEvents: cut }));
    const response = await post(server, path, { model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    const { text, broken } = await readUntilBroken(response);
    expect(broken).toBe(true);
    expect(text.split('\n\n').filter((event) => event.trim() !== '')).toHaveLength(cut);
    expect(text).not.toContain('message_stop');
    expect(text).not.toContain('[DONE]');
  });

  test('a cut non-streamed answer sends its headers and half its body', async () => {
    const server = await start(replyWithText(REPLY.text, { cutAfterEvents: 0 }));
    const response = await post(server, '/messages', { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    const { text, broken } = await readUntilBroken(response);
    expect(broken).toBe(true);
    expect(text.length).toBeGreaterThan(20);
    expect(() => JSON.parse(text) as unknown).toThrow();
  });

  test.each([
    ['anthropic', anthropic, 4],
    ['openai', openai, 2],
  ])('the AI SDK sees a stream cut after its first text delta as an error, not an answer (%s)', async (_name, model, cut) => {
    const server = await start(replyWithText(REPLY.text, { cutAfterEvents: cut }));
    const result = streamText({ model: model(server), prompt: 'hi', maxOutputTokens: 100, maxRetries: 0 });
    let received = '';
    const reading = (async () => {
      for await (const part of result.fullStream) if (part.type === 'text-delta') received += part.text;
    })();
    // The socket error surfaces as the stream's failure: the SDK's "Failed to process successful response".
    await expect(reading).rejects.toMatchObject({ cause: expect.objectContaining({ message: 'terminated' }) });
    expect(REPLY.text.startsWith(received)).toBe(true);
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(REPLY.text.length);
  });

  test('a cut JSON answer fails generateText', async () => {
    const server = await start(replyWithText(REPLY.text, { cutAfterEvents: 0 }));
    await expect(generateText({ model: anthropic(server), prompt: 'hi', maxOutputTokens: 100, maxRetries: 0 })).rejects.toThrow();
  });

  test('rateLimited(): 429 with retry-after, or the other headers it is asked for, as a reply or a script', async () => {
    const server = await start(
      replySequence(rateLimited(30), rateLimited(1.5, { via: ['retry-after-ms', 'anthropic-ratelimit-requests-reset'], now: () => Date.UTC(2030, 0, 1) })),
    );
    const first = await post(server, '/messages', { model: 'm', messages: [] });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('30');
    expect(await first.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) } });
    const second = await post(server, '/messages', { model: 'm', messages: [] });
    expect(second.headers.get('retry-after')).toBeNull();
    expect(second.headers.get('retry-after-ms')).toBe('1500');
    expect(second.headers.get('anthropic-ratelimit-requests-reset')).toBe('2030-01-01T00:00:01.500Z');
    expect(second.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');

    const whole = await start(rateLimited(5));
    const openaiAnswer = await post(whole, '/chat/completions', { model: 'm', messages: [] });
    expect(openaiAnswer.status).toBe(429);
    expect(openaiAnswer.headers.get('retry-after')).toBe('5');
    expect(await openaiAnswer.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  test('overloaded() is 529 with Anthropic overloaded_error body', async () => {
    const server = await start(overloaded());
    const response = await post(server, '/messages', { model: 'm', messages: [] });
    expect(response.status).toBe(529);
    expect(await response.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  test('404 answers name the model the way each provider does', async () => {
    const server = await start(() => ({ status: 404 }));
    const claude = await post(server, '/messages', { model: 'claude-gone', messages: [] });
    expect(await claude.json()).toEqual({ type: 'error', error: { type: 'not_found_error', message: 'model: claude-gone' } });
    const gpt = await post(server, '/chat/completions', { model: 'gpt-gone', messages: [] });
    expect(await gpt.json()).toMatchObject({ error: { code: 'model_not_found', message: expect.stringContaining('`gpt-gone`') } });
  });

  test('more than 4 cache_control breakpoints are refused as the API refuses them', async () => {
    const server = await start(replyWithText('unused'));
    const marked = { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } };
    const response = await post(server, '/messages', {
      model: 'm',
      max_tokens: 5,
      system: [marked, marked],
      messages: [{ role: 'user', content: [marked, marked, marked] }],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('Found 5') } });
  });
});
