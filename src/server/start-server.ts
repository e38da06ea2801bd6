import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/load-config.js';
import { derivePublicUrl } from '../config/public-url.js';
import { buildApp } from '../app/build-app.js';
import type { Logger } from '../app/logger.js';
import type { ServiceOverrides, Services } from '../app/services.js';
import { createJobWorker, type JobWorkerOptions } from '../jobs/start-job-worker.js';
import { workspacesDirectory } from '../git/workspace.js';
import { startWorkspaceSweeper, type WorkspaceSweeper } from '../jobs/workspace-sweeper.js';
import type { WorkerPool } from '../queue/worker-pool.js';
import { features } from './features.js';
import { openRuntime } from './open-runtime.js';
import { stopGracefully } from './graceful-stop.js';
import { requirePublicUrlForWorker } from './public-url-rule.js';
import { announceSetup } from '../accounts/setup-announcement.js';
import { createWebhookWorker } from '../webhooks/start-webhook-worker.js';
import type { WebhookDeliveryWorker } from '../webhooks/webhook-delivery-worker.js';

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

/** The worker of a process, its workspace sweeper and the webhook delivery worker, started together. */
function startJobWorker(
  services: Services,
  logger: Logger,
  options: JobWorkerOptions | undefined,
): { worker: WorkerPool; sweeper: WorkspaceSweeper; webhooks: WebhookDeliveryWorker } {
  const worker = createJobWorker(services, logger, options);
  worker.start();
  const sweeper = startWorkspaceSweeper({
    workspacesDir: workspacesDirectory(services.config.dataDir),
    queue: services.queue,
    clock: services.clock,
    leaseMs: options?.leaseMs ?? services.config.worker.leaseMs,
    localJobIds: () => worker.runningJobIds(),
    logger: logger.child({ component: 'workspace-sweeper' }),
  });
  const webhooks = createWebhookWorker(services, logger);
  webhooks.start();
  return { worker, sweeper, webhooks };
}

/**
 * Starts the API (and a worker). stop() drains (graceful-stop.ts): unready, no more
 * claims, running turns get the grace period while the API still answers, then streams
 * end, the listener closes and the store closes. Signal wiring lives in the CLI, so tests
 * can start and stop servers in-process.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config, logger } = options;
  const services = await openRuntime(config, undefined, options.overrides, logger);
  const app = await buildApp({ services, logger, features });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await services.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Unset, the public URL is where this server really listens (PORT=0 included); the
  // local forge reads config.publicUrl when it writes a link, so it sees this value.
  if (!config.publicUrlIsSet) config.publicUrl = derivePublicUrl(config.host, port);
  await announceSetup(services, logger).catch((error: unknown) => logger.warn({ err: error }, 'could not check whether setup is needed'));
  const started = options.worker === false ? null : startJobWorker(services, logger, options.workerOptions);
  let stopping: Promise<void> | null = null;
  return {
    app,
    services,
    worker: started?.worker ?? null,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    stop() {
      stopping ??= stopGracefully({
        logger,
        services,
        app,
        worker: started?.worker ?? null,
        sweeper: started?.sweeper ?? null,
        webhooks: started?.webhooks ?? null,
        graceMs: config.worker.shutdownTimeoutMs,
        delayMs: config.shutdownDelayMs,
      });
      return stopping;
    },
  };
}

/** A worker-only process: `docwright worker`. Refuses to start without DOCWRIGHT_PUBLIC_URL. */
export async function startWorker(options: {
  config: Config;
  logger: Logger;
  workerOptions?: JobWorkerOptions;
  overrides?: ServiceOverrides;
}): Promise<{ services: Services; worker: WorkerPool; stop(): Promise<void> }> {
  const { config, logger } = options;
  requirePublicUrlForWorker(config);
  const services = await openRuntime(config, undefined, options.overrides, logger);
  const { worker, sweeper, webhooks } = startJobWorker(services, logger, options.workerOptions);
  let stopping: Promise<void> | null = null;
  return {
    services,
    worker,
    stop() {
      stopping ??= stopGracefully({ logger, services, app: null, worker, sweeper, webhooks, graceMs: config.worker.shutdownTimeoutMs, delayMs: 0 });
      return stopping;
    },
  };
}
