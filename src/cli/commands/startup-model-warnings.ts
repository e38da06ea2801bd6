import type { Config } from '../../config/load-config.js';
import { retiredModelWarning } from '../../config/retired-model-warning.js';

type MissingCredentials = (modelId: string, credentials: Config['models']) => string | null;

/**
 * What `serve` and `worker` warn about the default model before they start: credentials
 * it cannot run without, and a retirement the model table records. The credentials check
 * is passed in because model-provider.js loads lazily (it pulls in the AI SDK).
 */
export function startupModelWarnings(config: Pick<Config, 'models' | 'usage'>, missingModelCredentials: MissingCredentials, now: number): string[] {
  const modelId = config.models.defaultModel;
  return [missingModelCredentials(modelId, config.models), retiredModelWarning(modelId, config.usage.prices, now)].filter(
    (warning): warning is string => warning !== null,
  );
}
