import { loadConfig } from '../config/load-config.js';
import type { Services } from '../app/services.js';

/**
 * Runs an administrative command directly against the configured store, then closes it.
 * The runtime is imported on demand so `--help` and client commands start fast.
 */
export async function withLocalServices<T>(run: (services: Services) => Promise<T>): Promise<T> {
  const { openRuntime } = await import('../server/open-runtime.js');
  const services = await openRuntime(loadConfig());
  try {
    return await run(services);
  } finally {
    await services.close();
  }
}
