import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../app/services.js';
import { AnalyticsService } from './analytics-service.js';
import { ClickHouseAnalyticsStore } from './clickhouse/clickhouse-analytics-store.js';
import { createVerificationService } from './verification/create-verification-service.js';

export { AnalyticsService };
export type { DeletedProjectData } from './project-data-deletion.js';

/** The analytics service of a process, from its core services. */
export function createAnalyticsService(services: Services, logger?: Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'>): AnalyticsService {
  // One verification service per process: the ingest path (and its worker threads) gets its
  // synchronous verifier; the service itself fetches ranges, key directories and DNS off that path.
  const verification = createVerificationService(services.config, services.clock, logger, services.verificationNetwork);
  const service = new AnalyticsService({
    verification,
    ...(verification === null ? {} : { verifier: verification.ingestVerifier() }),
    database: services.database,
    clock: services.clock,
    secret: services.config.secret,
    retentionDays: services.config.analytics.retentionDays,
    clickhouse: services.config.analytics.clickhouse,
    projectSettings: async (projectId) => (await services.projects.find(projectId))?.settings ?? null,
    onBackgroundError: (error) => logger?.error({ err: error }, 'analytics background work failed (fold, ClickHouse spool drain or nonce ledger)'),
  });
  // ClickHouse: migrate at start, so a wrong URL or password shows in the log at once
  // rather than at the first analytics request (which retries the migrations).
  if (service.store instanceof ClickHouseAnalyticsStore) {
    service.store.ready().catch((error: unknown) => logger?.error({ err: error }, 'ClickHouse analytics: migrations failed; analytics requests will retry'));
  }
  return service;
}
