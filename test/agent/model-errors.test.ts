import { describe, expect, test } from 'vitest';
import { APICallError, RetryError } from 'ai';
import { DocwrightError } from '../../src/core/errors.js';
import { isRetryable, redactSecrets, toModelError } from '../../src/agent/model-errors.js';

function apiError(statusCode: number | undefined, message: string, isRetryable?: boolean): APICallError {
  return new APICallError({ message, url: 'http://127.0.0.1/v1/chat/completions', requestBodyValues: {}, statusCode, isRetryable });
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
