import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_MODEL } from '../../src/config/default-model.js';
import {
  DEFAULT_LIMITS,
  SHIPPED_MODEL_PRICES,
  contextWindowOf,
  costMicroUsd,
  loadModelPrices,
  maxOutputTokensOf,
  priceOf,
  retiredOn,
} from '../../src/config/model-prices.js';
import { retiredModelWarning } from '../../src/config/retired-model-warning.js';
import { loadConfig } from '../../src/config/load-config.js';

const DEC_1_2026 = Date.parse('2026-12-01T12:00:00Z');

function overrideFile(models: object): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'docwright-prices-')), 'prices.json');
  writeFileSync(file, JSON.stringify({ models }));
  return file;
}

describe('the shipped model table', () => {
  test('the default model is current: priced with its cache prices, with a window, not retired', () => {
    expect(loadConfig({ DOCWRIGHT_SECRET: 'x'.repeat(32) }).models.defaultModel).toBe(DEFAULT_MODEL);
    expect(priceOf(SHIPPED_MODEL_PRICES, DEFAULT_MODEL)).toEqual({ input: 2, output: 10, cachedInput: 0.2, cacheWrite: 2.5 });
    expect(contextWindowOf(SHIPPED_MODEL_PRICES, DEFAULT_MODEL)).toBe(1_000_000);
    expect(maxOutputTokensOf(SHIPPED_MODEL_PRICES, DEFAULT_MODEL)).toBe(128_000);
    expect(retiredOn(SHIPPED_MODEL_PRICES, DEFAULT_MODEL)).toBeUndefined();
  });

  test('retired Anthropic models carry their date and no price; their snapshots and aliases too', () => {
    for (const id of ['anthropic:claude-sonnet-4-5', 'anthropic:claude-sonnet-4-5-20250929']) {
      expect(retiredOn(SHIPPED_MODEL_PRICES, id)).toBe('2026-05-18');
      expect(priceOf(SHIPPED_MODEL_PRICES, id)).toBeUndefined();
    }
    expect(retiredOn(SHIPPED_MODEL_PRICES, 'anthropic:claude-sonnet-4-20250514')).toBe('2026-06-15');
    expect(retiredOn(SHIPPED_MODEL_PRICES, 'anthropic:claude-opus-4-0')).toBe('2026-06-15');
    expect(retiredOn(SHIPPED_MODEL_PRICES, 'anthropic:claude-opus-4-1-20250805')).toBe('2026-08-05');
  });

  test('a current model is not taken for a retired family it shares a prefix with', () => {
    for (const id of [
      'anthropic:claude-opus-4-7',
      'anthropic:claude-opus-4-8',
      'anthropic:claude-sonnet-4-6',
      'anthropic:claude-opus-5-5',
      'openai:gpt-6-sol',
    ]) {
      expect(retiredOn(SHIPPED_MODEL_PRICES, id)).toBeUndefined();
      expect(priceOf(SHIPPED_MODEL_PRICES, id)).toBeDefined();
    }
  });

  test('every date is a real calendar date and every priced entry has both prices', () => {
    for (const [id, entry] of SHIPPED_MODEL_PRICES) {
      if (entry.retired !== undefined) expect(new Date(`${entry.retired}T00:00:00Z`).toISOString().slice(0, 10), id).toBe(entry.retired);
      expect(entry.input === undefined, id).toBe(entry.output === undefined);
      if (entry.maxOutputTokens !== undefined && entry.contextWindow !== undefined) expect(entry.maxOutputTokens, id).toBeLessThan(entry.contextWindow);
    }
  });
});

describe('contextWindowOf, maxOutputTokensOf', () => {
  test('a dated snapshot takes its family entry', () => {
    expect(contextWindowOf(SHIPPED_MODEL_PRICES, 'anthropic:claude-haiku-4-5-20251001')).toBe(200_000);
    expect(maxOutputTokensOf(SHIPPED_MODEL_PRICES, 'anthropic:claude-haiku-4-5-20251001')).toBe(64_000);
    expect(contextWindowOf(SHIPPED_MODEL_PRICES, 'openai:gpt-6.2-sol-2026-11-01')).toBe(1_050_000);
  });

  test('unknown models get the documented per-provider defaults', () => {
    expect(contextWindowOf(SHIPPED_MODEL_PRICES, 'anthropic:claude-future-9')).toBe(DEFAULT_LIMITS.anthropic.contextWindow);
    expect(contextWindowOf(SHIPPED_MODEL_PRICES, 'openai:gpt-future')).toBe(128_000);
    expect(maxOutputTokensOf(SHIPPED_MODEL_PRICES, 'openai:gpt-future')).toBe(16_384);
    expect(contextWindowOf(SHIPPED_MODEL_PRICES, 'openai-compatible:llama3.1:8b')).toBe(32_768);
    expect(maxOutputTokensOf(SHIPPED_MODEL_PRICES, 'openai-compatible:llama3.1:8b')).toBe(4_096);
  });

  test('the override file sets a local model window; the output limit never exceeds it', () => {
    const { prices, problems } = loadModelPrices(overrideFile({ 'openai-compatible:llama3.1:8b': { contextWindow: 2_048 } }));
    expect(problems).toEqual([]);
    expect(contextWindowOf(prices, 'openai-compatible:llama3.1:8b')).toBe(2_048);
    expect(maxOutputTokensOf(prices, 'openai-compatible:llama3.1:8b')).toBe(2_048);
    expect(priceOf(prices, 'openai-compatible:llama3.1:8b')).toBeUndefined();
  });

  test('an override merges field by field with the shipped entry, and can mark a model retired', () => {
    const { prices } = loadModelPrices(overrideFile({ [DEFAULT_MODEL]: { contextWindow: 200_000 }, 'anthropic:claude-opus-5': { retired: '2026-11-30' } }));
    expect(contextWindowOf(prices, DEFAULT_MODEL)).toBe(200_000);
    expect(priceOf(prices, DEFAULT_MODEL)?.input).toBe(2);
    expect(retiredOn(prices, 'anthropic:claude-opus-5')).toBe('2026-11-30');
    expect(contextWindowOf(SHIPPED_MODEL_PRICES, DEFAULT_MODEL)).toBe(1_000_000);
  });

  test('an invalid override names the setting and the field', () => {
    const { problems } = loadModelPrices(overrideFile({ 'openai:x': { input: 1 }, 'openai:y': { contextWindow: -5 }, 'openai:z': { retired: 'soon' } }));
    expect(problems.join('\n')).toContain('DOCWRIGHT_MODEL_PRICES_FILE: models.openai:x');
    expect(problems.join('\n')).toContain('models.openai:y.contextWindow');
    expect(problems.join('\n')).toContain('models.openai:z.retired: must be a date');
  });
});

describe('costMicroUsd with the table', () => {
  test("cache reads and writes are priced at the default model's cache prices", () => {
    const price = priceOf(SHIPPED_MODEL_PRICES, DEFAULT_MODEL);
    // 300k uncached × $2 + 600k read × $0.20 + 100k written × $2.50 + 10k out × $10, per million.
    const cost = costMicroUsd(price, { inputTokens: 1_000_000, cachedInputTokens: 600_000, cacheWriteTokens: 100_000, outputTokens: 10_000 });
    expect(cost).toBe(600_000 + 120_000 + 250_000 + 100_000);
  });

  test('an entry without a cache-read price charges reads as input (an upper bound)', () => {
    const price = priceOf(SHIPPED_MODEL_PRICES, 'anthropic:claude-fable-5-2');
    expect(costMicroUsd(price, { inputTokens: 1_000, cachedInputTokens: 1_000, cacheWriteTokens: 0, outputTokens: 0 })).toBe(8_000);
  });
});

describe('retiredModelWarning', () => {
  test('a retired default model: the date, DOCWRIGHT_MODEL and a current model', () => {
    const warning = retiredModelWarning('anthropic:claude-sonnet-4-5', SHIPPED_MODEL_PRICES, DEC_1_2026);
    expect(warning).toBe(
      `DOCWRIGHT_MODEL "anthropic:claude-sonnet-4-5" was retired by its provider on 2026-05-18: its jobs fail. Set DOCWRIGHT_MODEL to a current model, for example ${DEFAULT_MODEL}.`,
    );
  });

  test('an announced shutdown says when', () => {
    expect(retiredModelWarning('openai:gpt-5', SHIPPED_MODEL_PRICES, DEC_1_2026)).toContain('shuts down at its provider on 2026-12-11');
  });

  test('a current model: no warning', () => {
    expect(retiredModelWarning(DEFAULT_MODEL, SHIPPED_MODEL_PRICES, DEC_1_2026)).toBeNull();
  });
});
