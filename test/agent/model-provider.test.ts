import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateText } from 'ai';
import { describe, expect, test } from 'vitest';
import { startRecordingServer } from '../helpers/recording-server.js';
import { DocwrightError } from '../../src/core/errors.js';
import { missingModelCredentials, parseModelId, resolveLanguageModel } from '../../src/agent/model-provider.js';

function thrown(action: () => unknown): DocwrightError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(DocwrightError);
    return error as DocwrightError;
  }
  throw new Error('expected an error');
}

describe('parseModelId', () => {
  test('splits at the first colon so model names may contain colons', () => {
    expect(parseModelId('anthropic:claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModelId('openai:gpt-5')).toEqual({ provider: 'openai', model: 'gpt-5' });
    expect(parseModelId('openai-compatible:llama3.1:8b')).toEqual({ provider: 'openai-compatible', model: 'llama3.1:8b' });
  });

  test.each(['claude-sonnet-4-5', 'anthropic:', ':gpt-5', 'mistral:large', 'openai:gpt 5', '', 'ANTHROPIC:claude'])(
    'rejects %j as invalid_model with status 400',
    (id) => {
      const error = thrown(() => parseModelId(id));
      expect(error.code).toBe('invalid_model');
      expect(error.status).toBe(400);
      expect(error.message).toContain('provider:model');
    },
  );
});

describe('resolveLanguageModel', () => {
  test.each([
    ['anthropic:claude-sonnet-4-5', 'ANTHROPIC_API_KEY'],
    ['openai:gpt-5', 'OPENAI_API_KEY'],
    ['openai-compatible:llama3', 'DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL'],
  ])('%s without credentials is model_not_configured naming %s', (id, variable) => {
    const error = thrown(() => resolveLanguageModel(id, {}));
    expect(error.code).toBe('model_not_configured');
    expect(error.message).toContain(variable);
    expect(missingModelCredentials(id, {})).toContain(variable);
  });

  test('a blank key counts as missing', () => {
    expect(thrown(() => resolveLanguageModel('openai:gpt-5', { openaiApiKey: '  ' })).code).toBe('model_not_configured');
  });

  test('another provider’s key does not configure this one', () => {
    const error = thrown(() => resolveLanguageModel('anthropic:claude', { openaiApiKey: 'sk-openai' }));
    expect(error.code).toBe('model_not_configured');
  });

  test('a malformed id is invalid_model, also for the start-up warning', () => {
    expect(thrown(() => resolveLanguageModel('gpt-5', { openaiApiKey: 'sk-x' })).code).toBe('invalid_model');
    expect(missingModelCredentials('gpt-5', { openaiApiKey: 'sk-x' })).toContain('not valid');
  });

  test('builds a model of the right provider when configured', () => {
    const cases = [
      ['anthropic:claude-sonnet-4-5', { anthropicApiKey: 'key' }, 'anthropic', 'claude-sonnet-4-5'],
      ['openai:gpt-5', { openaiApiKey: 'key' }, 'openai', 'gpt-5'],
      ['openai-compatible:llama3.1:8b', { openaiCompatibleBaseUrl: 'http://127.0.0.1:11434/v1' }, 'openai-compatible', 'llama3.1:8b'],
    ] as const;
    for (const [id, credentials, provider, modelName] of cases) {
      const model = resolveLanguageModel(id, credentials);
      if (typeof model === 'string') throw new Error('expected a model object');
      expect(model.provider.split('.')[0]).toBe(provider);
      expect(model.modelId).toBe(modelName);
      expect(missingModelCredentials(id, credentials)).toBeNull();
    }
  });

  test('the openai-compatible provider needs no key (local servers)', () => {
    expect(missingModelCredentials('openai-compatible:qwen', { openaiCompatibleBaseUrl: 'http://localhost:8080/v1' })).toBeNull();
  });
});

describe('provider keys and redirects', () => {
  test.each([
    ['anthropic:claude-sonnet-4-5', 'anthropicApiKey', 'anthropicBaseUrl'],
    ['openai:gpt-5', 'openaiApiKey', 'openaiBaseUrl'],
    ['openai-compatible:llama3', 'openaiCompatibleApiKey', 'openaiCompatibleBaseUrl'],
  ] as const)('%s never follows a redirect to another host with its key', async (id, keyField, urlField) => {
    const key = 'sk-provider-key-that-must-stay-home-123456';
    const elsewhere = await startRecordingServer();
    const redirecting = createServer((request, response) => {
      response.writeHead(307, { location: `${elsewhere.url}${request.url ?? '/'}` });
      response.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = redirecting.address() as AddressInfo;
      const model = resolveLanguageModel(id, { [keyField]: key, [urlField]: `http://127.0.0.1:${port}/v1` });
      const failure = await generateText({ model, prompt: 'hello', maxRetries: 0 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(elsewhere.calls).toEqual([]);
      expect(elsewhere.everythingReceived()).not.toContain(key);
    } finally {
      redirecting.closeAllConnections();
      await new Promise<void>((resolve) => redirecting.close(() => resolve()));
      await elsewhere.close();
    }
  });
});
