import { describe, expect, test } from 'vitest';
import { APICallError, RetryError } from 'ai';
import { DocwrightError } from '../../src/core/errors.js';
import { isRetryable, redactSecrets, toModelError } from '../../src/agent/model-errors.js';

function apiError(statusCode: number | undefined, message: string, isRetryable?: boolean): APICallError {
  return new APICallError({ message, url: 'http://127.0.0.1/v1/chat/completions', requestBodyValues: {}, statusCode, isRetryable });
}

function providerAnswer(statusCode: number, body: object, model = 'claude-sonnet-4-5'): APICallError {
  const responseBody = JSON.stringify(body);
  return new APICallError({
    message: responseBody,
    url: 'http://127.0.0.1/v1/messages',
    requestBodyValues: { model },
    statusCode,
    responseBody,
    isRetryable: false,
  });
}

describe('toModelError', () => {
  test('5xx and 429 are retryable, with the status in the message', () => {
    for (const status of [500, 502, 503, 429]) {
      const error = toModelError(apiError(status, 'upstream trouble'));
      expect(error?.code).toBe('model_error');
      expect(isRetryable(error)).toBe(true);
      expect(error?.message).toContain(`HTTP ${status}`);
    }
  });

  test('exhausted retries report the attempts and the last error', () => {
    const errors = [apiError(500, 'a'), apiError(500, 'b'), apiError(500, 'c')];
    const error = toModelError(new RetryError({ message: 'failed', reason: 'maxRetriesExceeded', errors }));
    expect(error?.message).toContain('after 3 attempts');
    expect(error?.providerStatus).toBe(500);
    expect(isRetryable(error)).toBe(true);
  });

  test('auth failures are not retryable and never quote the provider message', () => {
    const error = toModelError(apiError(401, 'Incorrect API key provided: sk-live-abcdef123456'));
    expect(isRetryable(error)).toBe(false);
    expect(error?.message).not.toContain('abcdef');
    expect(toModelError(apiError(400, 'bad request'))?.retryable).toBe(false);
  });

  test('errors that did not come from the SDK are not model errors', () => {
    expect(toModelError(new Error('bug'))).toBeNull();
    expect(isRetryable(new Error('bug'))).toBe(false);
    expect(isRetryable(new DocwrightError('conflict', 'x'))).toBe(false);
  });
});

describe('model_unavailable', () => {
  test.each([
    ['Anthropic 404 not_found_error', providerAnswer(404, { type: 'error', error: { type: 'not_found_error', message: 'model: claude-sonnet-4-5' } })],
    [
      'OpenAI 404 model_not_found',
      providerAnswer(
        404,
        {
          error: {
            message: 'The model `gpt-4.5` does not exist or you do not have access to it.',
            type: 'invalid_request_error',
            param: null,
            code: 'model_not_found',
          },
        },
        'gpt-4.5',
      ),
    ],
    [
      'OpenAI 400 without a code',
      providerAnswer(
        400,
        { error: { message: 'The model `gpt-4.5` does not exist or you do not have access to it.', type: 'invalid_request_error' } },
        'gpt-4.5',
      ),
    ],
    [
      'a deprecated model',
      providerAnswer(404, { error: { message: 'The model `text-davinci-003` has been deprecated.', type: 'invalid_request_error' } }, 'text-davinci-003'),
    ],
  ])('%s fails at once, naming the model and DOCWRIGHT_MODEL', (_name, answer) => {
    const error = toModelError(answer);
    expect(error?.code).toBe('model_unavailable');
    expect(isRetryable(error)).toBe(false);
    expect(error?.message).toContain(`"${String((answer.requestBodyValues as { model: string }).model)}"`);
    expect(error?.message).toContain('set DOCWRIGHT_MODEL'.replace('set', 'Set'));
    expect(error?.message).toContain('for example anthropic:claude-sonnet-5-5');
  });

  test('other 4xx answers stay model_error', () => {
    const tooLong = providerAnswer(400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    expect(toModelError(tooLong)?.code).toBe('model_error');
    const missingRoute = providerAnswer(404, { type: 'error', error: { type: 'not_found_error', message: 'Not found' } });
    expect(toModelError(missingRoute)?.code).toBe('model_error');
    expect(toModelError(apiError(404, 'Not Found'))?.code).toBe('model_error');
  });

  test('a model error keeps its code through a retry wrapper', () => {
    const answer = providerAnswer(404, { type: 'error', error: { type: 'not_found_error', message: 'model: claude-sonnet-4-5' } });
    const error = toModelError(new RetryError({ message: 'failed', reason: 'errorNotRetryable', errors: [answer] }));
    expect(error?.code).toBe('model_unavailable');
  });
});

describe('redactSecrets', () => {
  test('masks key-shaped values', () => {
    const text = redactSecrets('key sk-ant-api03-abcdefghij, header Bearer abc.def, url ?api_key=zzz&x=1 token Zx9'.concat('q'.repeat(40)));
    expect(text).not.toContain('abcdefghij');
    expect(text).not.toContain('abc.def');
    expect(text).not.toContain('zzz');
    expect(text).not.toContain('q'.repeat(40));
    expect(text).toContain('api_key=[redacted]');
  });

  test('leaves ordinary text alone', () => {
    expect(redactSecrets('The model is overloaded, try again (HTTP 529).')).toBe('The model is overloaded, try again (HTTP 529).');
  });
});
