import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/load-config.js';
import { buildApp } from '../app/build-app.js';
import type { Logger } from '../app/logger.js';
import type { ServiceOverrides, Services } from '../app/services.js';
import { createJobWorker, type JobWorkerOptions } from '../jobs/start-job-worker.js';
import type { WorkerPool } from '../queue/worker-pool.js';
import { features } from './features.js';
import { openRuntime } from './open-runtime.js';
import { announceSetup } from '../accounts/setup-announcement.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  worker: WorkerPool | null;
  url: string;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  config: Config;
  logger: Logger;
  /** Run an in-process job worker (the default of `docwright serve`). */
  worker?: boolean;
  workerOptions?: JobWorkerOptions;
  overrides?: ServiceOverrides;
}

/**
 * Starts the API (and a worker). stop() drains: the listener closes and in-flight requests
 * finish (new ones get 503), running turns get the shutdown grace period, then the store
 * closes. Signal wiring lives in the CLI, so tests can start and stop servers in-process.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config, logger } = options;
  const services = await openRuntime(config, undefined, options.overrides);
  const app = await buildApp({ services, logger, features });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await services.close();
    throw error;
  }
  await announceSetup(services, logger).catch((error: unknown) => logger.warn({ err: error }, 'could not check whether setup is needed'));
  const worker = options.worker === false ? null : createJobWorker(services, logger, options.workerOptions);
  worker?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let stopping: Promise<void> | null = null;
  return {
    app,
    services,
    worker,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    stop() {
      stopping ??= (async () => {
        await app.close();
        await worker?.stop(config.worker.shutdownTimeoutMs);
        await services.close();
      })();
      return stopping;
    },
  };
}

/** A worker-only process: `docwright worker`. */
export async function startWorker(options: { config: Config; logger: Logger; workerOptions?: JobWorkerOptions; overrides?: ServiceOverrides }): Promise<{ services: Services; worker: WorkerPool; stop(): Promise<void> }> {
  const services = await openRuntime(options.config, undefined, options.overrides);
  const worker = createJobWorker(services, options.logger, options.workerOptions);
  worker.start();
  let stopping: Promise<void> | null = null;
  return {
    services,
    worker,
    stop() {
      stopping ??= (async () => {
        await worker.stop(options.config.worker.shutdownTimeoutMs);
        await services.close();
      })();
      return stopping;
    },
  };
}
