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

export type ModelPrices = ReadonlyMap<string, ModelPrice>;

const dollars = z.number().min(0).max(10_000);
const priceSchema = z.object({ input: dollars, output: dollars, cachedInput: dollars.optional(), cacheWrite: dollars.optional() }).strict();
const tableSchema = z.object({
  $comment: z.string().optional(),
  asOf: z.string().optional(),
  models: z.record(z.string().regex(/^(anthropic|openai|openai-compatible):\S+$/, 'must be a model id, provider:model'), priceSchema),
});

/** The table shipped with the package (src/config/model-prices.json). */
export const SHIPPED_MODEL_PRICES: ModelPrices = new Map(Object.entries(tableSchema.parse(shippedTable).models));

/**
 * The shipped table with the override file's entries on top (an entry replaces the
 * shipped one for that model id; other models keep theirs). Throws a message naming
 * the setting when the file cannot be read or is not a valid table.
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
  return { prices: new Map([...SHIPPED_MODEL_PRICES, ...Object.entries(result.data.models)]), problems: [] };
}

/**
 * The price of a model id: its own entry, else the longest entry it extends with a dash
 * (a dated snapshot such as `anthropic:claude-sonnet-4-5-20250929` takes
 * `anthropic:claude-sonnet-4-5`'s); undefined when none matches.
 */
export function priceOf(prices: ModelPrices, modelId: string): ModelPrice | undefined {
  const exact = prices.get(modelId);
  if (exact !== undefined) return exact;
  let best: { key: string; price: ModelPrice } | undefined;
  for (const [key, price] of prices) {
    if (modelId.startsWith(`${key}-`) && (best === undefined || key.length > best.key.length)) best = { key, price };
  }
  return best?.price;
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
