import type { LanguageModel } from 'ai';
import type { Clock } from '../core/clock.js';
import { SecretBox } from '../core/secret-box.js';
import { urlPasswordSpellings } from '../core/url-password.js';
import type { Config } from '../config/load-config.js';
import type { Database } from '../db/database.js';
import { ApiKeyService } from '../keys/api-key-service.js';
import { ProjectRepository } from '../projects/project-repository.js';
import { Notifier } from '../queue/notifier.js';
import { JobQueue } from '../queue/job-queue.js';
import { SlidingWindowLimiter } from '../rate-limit/sliding-window-limiter.js';
import { JobService } from '../jobs/job-service.js';
import { JobRepository } from '../jobs/job-repository.js';
import { createForgeRegistry, type ForgeRegistry } from '../git/forges/forge-registry.js';
import { resolveLanguageModel } from '../agent/model-provider.js';
import type { VerificationNetwork } from '../analytics/verification/verification-service.js';
import { IdempotencyStore } from './idempotency.js';
import { LocalPullRequests } from '../pull-requests/local-pull-requests.js';
import { PullRequestDiffCache } from '../pull-requests/pull-request-diff-cache.js';
import { keyCacheCoherence } from '../keys/key-cache-coherence.js';
import { AccountService } from '../accounts/account-service.js';
import { PasswordHasher } from '../accounts/password-hasher.js';
import { SessionStore } from '../accounts/session-store.js';
import { SignInThrottle } from '../accounts/sign-in-throttle.js';
import { ProjectDeletion, type ProjectDataRemover } from '../projects/project-deletion.js';
import { workspacesDirectory } from '../git/workspace.js';
import type { Logger } from './logger.js';
import { Readiness } from './readiness.js';
import { createAgentAnalytics, type AgentAnalytics } from '../analytics/agent-analytics.js';
import { WebhookService } from '../webhooks/webhook-service.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.js';
import { WebhookNetworkPolicy } from '../webhooks/webhook-network-policy.js';

/** Everything the HTTP routes, the worker and the CLI share; built once per process. */
export interface Services {
  config: Config;
  database: Database;
  clock: Clock;
  secretBox: SecretBox;
  projects: ProjectRepository;
  keys: ApiKeyService;
  /** Dashboard users, setup and password checks. */
  accounts: AccountService;
  sessions: SessionStore;
  projectDeletion: ProjectDeletion;
  /**
   * Called with a project's id when it is being deleted, before its own rows go: features
   * that keep per-project data elsewhere add theirs here (analytics: its deleteProjectData).
   */
  projectDataRemovers: ProjectDataRemover[];
  notifier: Notifier;
  queue: JobQueue;
  limiter: SlidingWindowLimiter;
  jobs: JobService;
  jobRepository: JobRepository;
  idempotency: IdempotencyStore;
  forges: ForgeRegistry;
  /** The local forge's pull requests for the dashboard (read, merge, close), with their diff cache (one per process). */
  pullRequests: LocalPullRequests;
  /** Maps a job's model id to a model; tests and benchmarks may pass their own. */
  resolveModel: (modelId: string) => LanguageModel;
  /**
   * Where agent verification's fetches may go, when not the public internet: benchmarks
   * pass a key directory on loopback. Undefined in production (docs/architecture.md).
   */
  verificationNetwork: VerificationNetwork | undefined;
  /** Every credential value this process knows; masked wherever the model could see it. */
  secrets: string[];
  /** Whether this process takes new traffic (/readyz); draining at shutdown turns it off. */
  readiness: Readiness;
  /**
   * The agent's read-only analytics (its `query_analytics` tool), bound to a job's project by
   * the worker. It shares the API's analytics service once the analytics routes register.
   */
  agentAnalytics: AgentAnalytics;
  /** Webhook endpoints, the outbox the delivery workers read, and where deliveries may go (docs/webhooks.md). */
  webhooks: WebhookService;
  webhookOutbox: WebhookOutbox;
  webhookDeliveries: WebhookDeliveries;
  webhookPolicy: WebhookNetworkPolicy;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  resolveModel?: (modelId: string) => LanguageModel;
  verificationNetwork?: VerificationNetwork;
}

export async function createServices(input: { config: Config; database: Database; clock: Clock; logger?: Logger } & ServiceOverrides): Promise<Services> {
  const { config, database, clock } = input;
  const notifier = await Notifier.create(database, input.logger === undefined ? {} : { logger: input.logger.child({ component: 'notifier' }) });
  const secretBox = new SecretBox(config.secret);
  const projects = new ProjectRepository(database.db, clock, secretBox);
  const limiter = new SlidingWindowLimiter(database, clock, 'agent');
  const jobRepository = new JobRepository(database, { notifier, clock });
  const forges = createForgeRegistry(config, database, clock);
  const coherence = keyCacheCoherence(database, notifier);
  const keys = new ApiKeyService(database.db, clock, coherence);
  const webhookPolicy = new WebhookNetworkPolicy(config.webhooks);
  const webhooks = new WebhookService({
    database,
    clock,
    instanceSecret: config.secret,
    policy: webhookPolicy,
    secretOverlapMs: config.webhooks.secretOverlapMs,
  });
  const projectDataRemovers: ProjectDataRemover[] = [(projectId) => webhooks.deleteProjectData(projectId)];
  const models = config.models;
  const secrets = [
    config.secret,
    models.anthropicApiKey,
    models.openaiApiKey,
    models.openaiCompatibleApiKey,
    ...(config.databaseUrl === undefined ? [] : urlPasswordSpellings(config.databaseUrl)),
  ].filter((value): value is string => typeof value === 'string' && value.length >= 8);
  const agentAnalytics = createAgentAnalytics({
    config,
    database,
    clock,
    projectSettings: async (projectId) => (await projects.find(projectId))?.settings ?? null,
  });
  return {
    config,
    database,
    clock,
    secretBox,
    projects,
    keys,
    accounts: new AccountService({
      database,
      clock,
      hasher: new PasswordHasher(),
      throttle: new SignInThrottle(database, clock, config.secret),
      instanceSecret: config.secret,
    }),
    sessions: new SessionStore(database.db, clock),
    projectDeletion: new ProjectDeletion({
      database,
      projects,
      keys,
      notifier,
      workspacesDir: workspacesDirectory(config.dataDir),
      removers: projectDataRemovers,
    }),
    projectDataRemovers,
    notifier,
    queue: new JobQueue(database, clock),
    limiter,
    jobRepository,
    jobs: new JobService({
      database,
      clock,
      notifier,
      limiter,
      repository: jobRepository,
      defaultModel: models.defaultModel,
      defaultRateLimit: config.rateLimitPerHour,
    }),
    idempotency: new IdempotencyStore(database, clock),
    forges,
    pullRequests: new LocalPullRequests(database, clock, forges.local, projects, notifier, new PullRequestDiffCache()),
    resolveModel: input.resolveModel ?? ((modelId) => resolveLanguageModel(modelId, models)),
    verificationNetwork: input.verificationNetwork,
    secrets,
    readiness: new Readiness(),
    agentAnalytics,
    webhooks,
    webhookOutbox: new WebhookOutbox(database, clock),
    webhookDeliveries: new WebhookDeliveries(database),
    webhookPolicy,
    async close() {
      coherence.close();
      await agentAnalytics.close();
      await notifier.close();
      await database.close();
    },
  };
}
