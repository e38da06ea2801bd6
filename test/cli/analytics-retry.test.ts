import { describe, expect, test } from 'vitest';
import { DocwrightError } from '../../src/core/errors.js';
import { isRetryableError, withRetries } from '../../src/cli/analytics-retry.js';
import { collectFieldMapping, parseDateOption, parseImportFormat } from '../../src/cli/analytics-options.js';

const unavailable = (): DocwrightError => new DocwrightError('service_unavailable', 'down', { status: 503 });

describe('isRetryableError', () => {
  test('retries network failures, 429 and 5xx, nothing else', () => {
    expect(isRetryableError(new DocwrightError('server_unreachable', 'ECONNREFUSED'))).toBe(true);
    expect(isRetryableError(new DocwrightError('rate_limited', 'slow down', { status: 429 }))).toBe(true);
    expect(isRetryableError(unavailable())).toBe(true);
    expect(isRetryableError(new DocwrightError('internal_error', 'oops', { status: 500 }))).toBe(true);
    expect(isRetryableError(new DocwrightError('validation_failed', 'bad', { status: 400 }))).toBe(false);
    expect(isRetryableError(new DocwrightError('unauthorized', 'no', { status: 401 }))).toBe(false);
    expect(isRetryableError(new DocwrightError('payload_too_large', 'big', { status: 413 }))).toBe(false);
    expect(isRetryableError(new DocwrightError('missing_api_key', 'set it'))).toBe(false);
    expect(isRetryableError(new Error('plain'))).toBe(false);
  });
});

describe('withRetries', () => {
  test('backs off exponentially with jitter and returns the first success', async () => {
    const delays: number[] = [];
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls++;
        if (calls < 4) throw unavailable();
        return 'ok';
      },
      { retries: 5, baseDelayMs: 100, maxDelayMs: 350, random: () => 1, sleep: async (ms) => void delays.push(ms) },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(4);
    expect(delays).toEqual([100, 200, 350]);
  });

  test('jitter keeps each delay between half and all of its ceiling', async () => {
    const delays: number[] = [];
    await expect(
      withRetries(async () => Promise.reject(unavailable()), {
        retries: 2,
        baseDelayMs: 1000,
        maxDelayMs: 10_000,
        random: () => 0,
        sleep: async (ms) => void delays.push(ms),
      }),
    ).rejects.toThrow('down');
    expect(delays).toEqual([500, 1000]);
  });

  test('gives up after the bounded number of retries with the last error', async () => {
    let calls = 0;
    await expect(
      withRetries(
        async () => {
          calls++;
          throw new DocwrightError('service_unavailable', `down ${calls}`, { status: 503 });
        },
        { retries: 3, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} },
      ),
    ).rejects.toThrow('down 4');
    expect(calls).toBe(4);
  });

  test('does not retry a client error, nor after an abort', async () => {
    let calls = 0;
    await expect(
      withRetries(
        async () => {
          calls++;
          throw new DocwrightError('validation_failed', 'bad', { status: 400 });
        },
        { retries: 5, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} },
      ),
    ).rejects.toThrow('bad');
    expect(calls).toBe(1);
    const controller = new AbortController();
    calls = 0;
    await expect(
      withRetries(
        async () => {
          calls++;
          throw unavailable();
        },
        { retries: 5, baseDelayMs: 1, maxDelayMs: 1, signal: controller.signal, sleep: async () => controller.abort() },
      ),
    ).rejects.toThrow('down');
    expect(calls).toBe(1);
  });
});

describe('analytics option parsers', () => {
  test('dates: days and zoned date-times, nothing else', () => {
    expect(parseDateOption('2026-09-01', '--from')).toEqual({ text: '2026-09-01', instant: Date.UTC(2026, 8, 1) });
    expect(parseDateOption('2026-09-01T12:30:00+02:00', '--to').instant).toBe(Date.UTC(2026, 8, 1, 10, 30));
    for (const wrong of ['2026-02-30', '2026-9-1', 'yesterday', '2026-09-01T12:00:00', '']) {
      expect(() => parseDateOption(wrong, '--from')).toThrow(/--from must be a date/);
    }
  });

  test('import formats accept jsonl as the JSON-lines name', () => {
    expect(parseImportFormat('jsonl')).toBe('json');
    expect(parseImportFormat('combined')).toBe('combined');
    expect(parseImportFormat('AUTO')).toBe('auto');
    expect(() => parseImportFormat('csv')).toThrow(/--format must be/);
  });

  test('--field collects NAME=COLUMN pairs, listing repeated fields in order', () => {
    let map = collectFieldMapping('path=req.uri', undefined);
    map = collectFieldMapping('timestamp=ts', map);
    map = collectFieldMapping('path=url', map);
    expect(map).toEqual({ path: ['req.uri', 'url'], timestamp: 'ts' });
    expect(() => collectFieldMapping('color=x', undefined)).toThrow(/NAME=COLUMN/);
    expect(() => collectFieldMapping('path=', undefined)).toThrow(/NAME=COLUMN/);
    expect(() => collectFieldMapping('path', undefined)).toThrow(/NAME=COLUMN/);
  });
});
