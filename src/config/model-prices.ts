import { readFileSync } from 'node:fs';
import { z } from 'zod';
import shippedTable from './model-prices.json' with { type: 'json' };

/** US dollars per million tokens. `cachedInput` and `cacheWrite` default to `input`. */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
  cacheWrite?: number;
}

/**
 * One row of the model table. Every field is optional so a row can carry only what is
 * known: a retired model without prices, a local model with only its context window.
 */
export interface ModelEntry {
  input?: number;
  output?: number;
  cachedInput?: number;
  cacheWrite?: number;
  /** Tokens the model reads and writes in one request, input and output together. */
  contextWindow?: number;
  /** The largest output the provider accepts in one request. */
  maxOutputTokens?: number;
  /** YYYY-MM-DD: when the provider shut (or shuts) the model down. */
  retired?: string;
  note?: string;
}

export type ModelPrices = ReadonlyMap<string, ModelEntry>;

const dollars = z.number().min(0).max(10_000);
const tokens = z.number().int().min(1).max(100_000_000);
const entrySchema = z
  .object({
    input: dollars.optional(),
    output: dollars.optional(),
    cachedInput: dollars.optional(),
    cacheWrite: dollars.optional(),
    contextWindow: tokens.optional(),
    maxOutputTokens: tokens.optional(),
    retired: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
      .optional(),
    note: z.string().optional(),
  })
  .strict()
  .refine((entry) => (entry.input === undefined) === (entry.output === undefined), 'input and output prices go together');
const tableSchema = z.object({
  $comment: z.string().optional(),
  asOf: z.string().optional(),
  sources: z.array(z.object({ url: z.string(), read: z.string(), covers: z.string() })).optional(),
  models: z.record(z.string().regex(/^(anthropic|openai|openai-compatible):\S+$/, 'must be a model id, provider:model'), entrySchema),
});

/** The table shipped with the package (src/config/model-prices.json). */
export const SHIPPED_MODEL_PRICES: ModelPrices = new Map(Object.entries(tableSchema.parse(shippedTable).models));

function merged(shipped: ModelPrices, overrides: Record<string, ModelEntry>): ModelPrices {
  const result = new Map(shipped);
  for (const [id, entry] of Object.entries(overrides)) result.set(id, { ...shipped.get(id), ...entry });
  return result;
}

/**
 * The shipped table with the override file's entries on top, field by field: an override
 * that sets only `contextWindow` keeps the shipped prices of that id. Problems name the
 * setting; with any, the shipped table is used alone.
 */
export function loadModelPrices(overrideFile: string | undefined): { prices: ModelPrices; problems: string[] } {
  if (overrideFile === undefined) return { prices: SHIPPED_MODEL_PRICES, problems: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(overrideFile, 'utf8'));
  } catch (error) {
    return { prices: SHIPPED_MODEL_PRICES, problems: [`DOCWRIGHT_MODEL_PRICES_FILE: cannot read ${overrideFile} as JSON (${(error as Error).message})`] };
  }
  const result = tableSchema.safeParse(parsed);
  if (!result.success) {
    return {
      prices: SHIPPED_MODEL_PRICES,
      problems: result.error.issues.map((issue) => `DOCWRIGHT_MODEL_PRICES_FILE: ${[...issue.path].join('.') || '(top level)'}: ${issue.message}`),
    };
  }
  return { prices: merged(SHIPPED_MODEL_PRICES, result.data.models), problems: [] };
}

/**
 * The value of one field for a model id: its own entry's, else that of the longest entry
 * it extends with a dash (a dated snapshot such as `anthropic:claude-sonnet-5-5-20261001`
 * takes `anthropic:claude-sonnet-5-5`'s). Field by field, so an override that gives a
 * snapshot only a window still takes its family's prices.
 */
function lookUp<T>(prices: ModelPrices, modelId: string, field: (entry: ModelEntry) => T | undefined): T | undefined {
  const exact = prices.get(modelId);
  const own = exact === undefined ? undefined : field(exact);
  if (own !== undefined) return own;
  let best: { key: string; value: T } | undefined;
  for (const [key, entry] of prices) {
    if (!modelId.startsWith(`${key}-`) || (best !== undefined && key.length <= best.key.length)) continue;
    const value = field(entry);
    if (value !== undefined) best = { key, value };
  }
  return best?.value;
}

/** The price of a model id (same lookup as the other fields); undefined when no entry prices it. */
export function priceOf(prices: ModelPrices, modelId: string): ModelPrice | undefined {
  return lookUp(prices, modelId, (entry) =>
    entry.input === undefined || entry.output === undefined
      ? undefined
      : {
          input: entry.input,
          output: entry.output,
          ...(entry.cachedInput === undefined ? {} : { cachedInput: entry.cachedInput }),
          ...(entry.cacheWrite === undefined ? {} : { cacheWrite: entry.cacheWrite }),
        },
  );
}

/**
 * Window and output limit of a model the table does not know. A wrong guess too small
 * only condenses earlier; too large makes the provider refuse the request, so each is the
 * smallest of its provider's current mainstream models, and a local server (whose window
 * is whatever it was started with) gets a small one the override file should correct.
 */
export const DEFAULT_LIMITS: Readonly<Record<'anthropic' | 'openai' | 'openai-compatible', { contextWindow: number; maxOutputTokens: number }>> = {
  anthropic: { contextWindow: 200_000, maxOutputTokens: 64_000 },
  openai: { contextWindow: 128_000, maxOutputTokens: 16_384 },
  'openai-compatible': { contextWindow: 32_768, maxOutputTokens: 4_096 },
};

function providerDefaults(modelId: string): { contextWindow: number; maxOutputTokens: number } {
  const provider = modelId.slice(0, modelId.indexOf(':'));
  return provider === 'anthropic' || provider === 'openai' ? DEFAULT_LIMITS[provider] : DEFAULT_LIMITS['openai-compatible'];
}

/** Tokens one request to the model may hold, input and output together. */
export function contextWindowOf(prices: ModelPrices, modelId: string): number {
  return lookUp(prices, modelId, (entry) => entry.contextWindow) ?? providerDefaults(modelId).contextWindow;
}

/** The largest output one request to the model may ask for; never more than its window. */
export function maxOutputTokensOf(prices: ModelPrices, modelId: string): number {
  const limit = lookUp(prices, modelId, (entry) => entry.maxOutputTokens) ?? providerDefaults(modelId).maxOutputTokens;
  return Math.min(limit, contextWindowOf(prices, modelId));
}

/** YYYY-MM-DD when the provider shut or shuts the model down; undefined when none is known. */
export function retiredOn(prices: ModelPrices, modelId: string): string | undefined {
  return lookUp(prices, modelId, (entry) => entry.retired);
}

export interface TokenCounts {
  /** All input tokens, cache reads and writes included. */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
}

/**
 * The estimated cost in millionths of a US dollar (a price per million tokens times the
 * tokens is exactly that), rounded to a whole number; null without a price.
 */
export function costMicroUsd(price: ModelPrice | undefined, tokens: TokenCounts): number | null {
  if (price === undefined) return null;
  const uncached = Math.max(0, tokens.inputTokens - tokens.cachedInputTokens - tokens.cacheWriteTokens);
  return Math.round(
    uncached * price.input +
      tokens.cachedInputTokens * (price.cachedInput ?? price.input) +
      tokens.cacheWriteTokens * (price.cacheWrite ?? price.input) +
      tokens.outputTokens * price.output,
  );
}
