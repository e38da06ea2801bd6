import type { FastifyInstance } from 'fastify';
import type { Logger } from '../app/logger.js';
import type { Services } from '../app/services.js';
import type { WorkspaceSweeper } from '../jobs/workspace-sweeper.js';
import type { WorkerPool } from '../queue/worker-pool.js';

export interface StopTarget {
  logger: Logger;
  services: Services;
  /** The HTTP app, when this process serves the API. */
  app: FastifyInstance | null;
  /** The job worker, when this process runs one. */
  worker: WorkerPool | null;
  sweeper: WorkspaceSweeper | null;
  /** The webhook delivery worker (beside the job worker): stops claiming, finishes the sends under way. */
  webhooks?: { stop(): Promise<void> } | null;
  /** Grace of running turns (DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS). */
  graceMs: number;
  /** The least time between turning unready and closing the listener (DOCWRIGHT_SHUTDOWN_DELAY_SECONDS). */
  delayMs: number;
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/**
 * Stops a process in the order that loses nothing, the same for `serve`, `serve
 * --no-worker` and `worker`, logging each phase once:
 * 1. /readyz answers 503 and the worker claims nothing more (other workers take new jobs);
 * 2. running turns get the grace period while the API still answers polls and streams,
 *    then the rest are handed back without counting the attempt;
 * 3. app.close(): event streams end with a `reconnect` event (their preClose hook), the
 *    listener closes, in-flight requests finish;
 * 4. the store closes.
 */
export async function stopGracefully(target: StopTarget): Promise<void> {
  const { logger, services, app, worker } = target;
  services.readiness.startDraining();
  logger.info(
    { graceSeconds: seconds(target.graceMs), ...(app ? { delaySeconds: seconds(target.delayMs) } : {}) },
    app ? 'shutdown: draining: /readyz answers 503, no new jobs are claimed, requests are still served' : 'shutdown: draining: no new jobs are claimed',
  );
  const listenerDelay = app && target.delayMs > 0 ? new Promise((resolve) => setTimeout(resolve, target.delayMs)) : Promise.resolve();
  // A sweep under way finishes beside the drain (it removes only what no lease owns).
  const sweeperStopped = target.sweeper?.stop();
  const webhooksStopped = target.webhooks?.stop();
  if (worker) {
    await worker.stopClaiming();
    if (worker.activeJobs > 0)
      logger.info({ turns: worker.activeJobs, graceSeconds: seconds(target.graceMs) }, 'shutdown: waiting for running turns to finish');
    const drained = await worker.drain(target.graceMs);
    if (drained.handedBack > 0)
      logger.info({ turns: drained.handedBack }, 'shutdown: grace period over: handed the running turns back (their attempt does not count)');
  }
  await sweeperStopped;
  await webhooksStopped;
  await listenerDelay;
  if (app) {
    logger.info('shutdown: closing event streams and the HTTP server (in-flight requests finish)');
    await app.close();
  }
  logger.info('shutdown: closing the store');
  await services.close();
}
