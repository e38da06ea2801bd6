import type { FastifyBaseLogger } from 'fastify';
import type { AnalyticsService } from './analytics-service.js';
import type { PruneCounts } from './analytics-store.js';

export const PRUNE_INTERVAL_MS = 60 * 60_000;
const FIRST_PRUNE_DELAY_MS = 60_000;

/** Applies the retention period once, as of the service's clock. For servers, the CLI and cron jobs. */
export function pruneAnalytics(service: AnalyticsService, now?: number): Promise<PruneCounts> {
  return service.prune(now);
}

/** Prunes a minute after start and hourly after that; timers never keep the process alive. */
export function startAnalyticsMaintenance(
  service: AnalyticsService,
  logger: Pick<FastifyBaseLogger, 'error'>,
  intervalMs = PRUNE_INTERVAL_MS,
): { stop(): void } {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    pruneAnalytics(service)
      .catch((error: unknown) => logger.error({ err: error }, 'analytics pruning failed'))
      .finally(() => {
        running = false;
      });
  };
  const first = setTimeout(run, Math.min(FIRST_PRUNE_DELAY_MS, intervalMs)).unref();
  const every = setInterval(run, intervalMs).unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
