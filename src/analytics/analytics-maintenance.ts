import type { FastifyBaseLogger } from 'fastify';
import { DocwrightError } from '../core/errors.js';
import type { AnalyticsService } from './analytics-service.js';
import type { PruneCounts } from './analytics-store.js';

export const PRUNE_INTERVAL_MS = 60 * 60_000;
const FIRST_PRUNE_DELAY_MS = 60_000;

/** Applies the retention period once, as of the service's clock. For servers, the CLI and cron jobs. */
export function pruneAnalytics(service: AnalyticsService, now?: number): Promise<PruneCounts> {
  return service.prune(now);
}

/**
 * Brings stored hits to the current agent table once, logging its progress per site
 * (docs/classification.md, "Reclassification"). A no-op when nothing is left.
 */
export async function reclassifyAnalytics(service: AnalyticsService, logger: Pick<FastifyBaseLogger, 'error' | 'info'>): Promise<void> {
  const result = await service
    .reclassify((progress) => {
      if (progress.state === 'running' && progress.sites > 0) {
        logger.info(
          { reclassification: progress },
          `analytics reclassification: ${progress.sitesDone} of ${progress.sites} sites, ${progress.hitsRewritten} hits rewritten, ${progress.hitsRefolded} to count again`,
        );
      }
    })
    .catch((error: unknown) => {
      // A store that can never do it (a ClickHouse cluster) is said once, not failed at every run.
      if (error instanceof DocwrightError && error.code === 'reclassification_unsupported') return null;
      throw error;
    });
  if (result === null) logger.info('analytics reclassification is not available on this store; hits keep the agent table they were stored with');
}

/**
 * A scheduled prune waits while more hits than this are unfolded. A prune folds every
 * pending hit first (retention must not cut a visitor's visit days while older hits of
 * theirs are still unfolded), in the foreground: after a bulk load that would be the
 * whole backlog, folded beside the load and the first reports (the 10M-hit benchmark's
 * prune, a minute after start, folded all through the load and its first answer). The
 * background fold catches up meanwhile; the prune is retried every minute until it has.
 */
export const PRUNE_DEFER_PENDING_HITS = 200_000;
const DEFERRED_RETRY_MS = 60_000;

/**
 * Prunes a minute after start and hourly after that, and reclassifies stored hits after
 * the first prune and again whenever the published ranges change; timers never keep the
 * process alive.
 */
export function startAnalyticsMaintenance(
  service: AnalyticsService,
  logger: Pick<FastifyBaseLogger, 'error' | 'info'>,
  intervalMs = PRUNE_INTERVAL_MS,
): { stop(): void } {
  let running = false;
  let reclassified = false;
  let again = false;
  let retry: NodeJS.Timeout | undefined;
  const maintain = async () => {
    if ((await service.pendingHits()) > PRUNE_DEFER_PENDING_HITS) {
      retry ??= setTimeout(
        () => {
          retry = undefined;
          run();
        },
        Math.min(DEFERRED_RETRY_MS, intervalMs),
      ).unref();
      return;
    }
    await pruneAnalytics(service);
    if (reclassified) return;
    // Retried at the next maintenance run when it fails.
    await reclassifyAnalytics(service, logger).then(
      () => (reclassified = true),
      (error: unknown) => logger.error({ err: error }, 'analytics reclassification failed'),
    );
  };
  const run = () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    again = false;
    maintain()
      .catch((error: unknown) => logger.error({ err: error }, 'analytics pruning failed'))
      .finally(() => {
        running = false;
        if (again) run();
      });
  };
  // Ranges whose content changed (a scheduled refresh): stored hits are re-verified against them.
  const stopListening = service.verification?.onRangesChanged(() => {
    reclassified = false;
    run();
  });
  const first = setTimeout(run, Math.min(FIRST_PRUNE_DELAY_MS, intervalMs)).unref();
  const every = setInterval(run, intervalMs).unref();
  return {
    stop() {
      stopListening?.();
      clearTimeout(first);
      clearInterval(every);
      clearTimeout(retry);
    },
  };
}
