import { loadConfig } from '../config/load-config.js';
import type { Services } from '../app/services.js';
import { openRuntime } from '../server/open-runtime.js';

/** Runs an administrative command directly against the configured store, then closes it. */
export async function withLocalServices<T>(run: (services: Services) => Promise<T>): Promise<T> {
  const services = await openRuntime(loadConfig());
  try {
    return await run(services);
  } finally {
    await services.close();
  }
}
