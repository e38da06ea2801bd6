import type { Logger } from '../app/logger.js';
import type { Services } from '../app/services.js';
import { WorkerPool } from '../queue/worker-pool.js';
import { JobRunner } from './job-runner.js';

export interface JobWorkerOptions {
  concurrency?: number;
  leaseMs?: number;
  idlePollMs?: number;
}

/** The job worker of this process: a pool that claims jobs and runs their turns. */
export function createJobWorker(services: Services, logger: Logger, options: JobWorkerOptions = {}): WorkerPool {
  const { config } = services;
  const runner = new JobRunner({
    database: services.database,
    clock: services.clock,
    queue: services.queue,
    notifier: services.notifier,
    projects: services.projects,
    forges: services.forges,
    resolveModel: services.resolveModel,
    analytics: services.agentAnalytics.source,
    budgets: config.budgets,
    prices: config.usage.prices,
    monthlyTokenBudget: config.usage.monthlyTokenBudget,
    maxAttempts: config.worker.maxAttempts,
    retryBaseMs: config.worker.retryBaseMs,
    modelRetries: config.worker.modelRetries,
    repositoryInstructionsMaxBytes: config.worker.repositoryInstructionsMaxBytes,
    dataDir: config.dataDir,
    secrets: services.secrets,
    logger: logger.child({ component: 'worker' }),
  });
  return new WorkerPool({
    queue: services.queue,
    notifier: services.notifier,
    handler: runner.handle,
    logger: logger.child({ component: 'worker' }),
    concurrency: options.concurrency ?? config.worker.concurrency,
    jobsPerProject: config.worker.jobsPerProject,
    leaseMs: options.leaseMs ?? config.worker.leaseMs,
    idlePollMs: options.idlePollMs ?? config.worker.idlePollMs,
  });
}
