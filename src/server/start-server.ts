import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/load-config.js';
import { buildApp } from '../app/build-app.js';
import type { Logger } from '../app/logger.js';
import type { Services } from '../app/services.js';
import { features } from './features.js';
import { openRuntime } from './open-runtime.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the API. stop() drains: the listener closes, in-flight requests finish (new
 * ones get 503), then the store closes. Signal wiring lives in the CLI, so tests can
 * start and stop servers in one process.
 */
export async function startServer(options: { config: Config; logger: Logger }): Promise<RunningServer> {
  const { config, logger } = options;
  const services = await openRuntime(config);
  const app = await buildApp({ services, logger, features });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await services.database.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let stopping: Promise<void> | null = null;
  return {
    app,
    services,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    stop() {
      stopping ??= (async () => {
        await app.close();
        await services.database.close();
      })();
      return stopping;
    },
  };
}
