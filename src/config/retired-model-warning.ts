import { DEFAULT_MODEL } from './default-model.js';
import { retiredOn, type ModelPrices } from './model-prices.js';

/**
 * The warning `serve` and `worker` print at start-up when the model table marks the default
 * model retired (its jobs fail) or scheduled for shutdown (they will), or null. Start-up
 * goes on: a project or a job may name another model.
 */
export function retiredModelWarning(modelId: string, prices: ModelPrices, now: number): string | null {
  const date = retiredOn(prices, modelId);
  if (date === undefined) return null;
  const today = new Date(now).toISOString().slice(0, 10);
  const status = date <= today ? `was retired by its provider on ${date}: its jobs fail` : `shuts down at its provider on ${date}`;
  return `DOCWRIGHT_MODEL "${modelId}" ${status}. Set DOCWRIGHT_MODEL to a current model, for example ${DEFAULT_MODEL}.`;
}
