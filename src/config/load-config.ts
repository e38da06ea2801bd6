import { join, resolve } from 'node:path';
import { maskUrlPasswords } from '../core/url-password.js';
import { CLICKHOUSE_SPOOL_FILE, DEFAULT_SPOOL_MAX_HITS, parseClickHouseSettings, type ClickHouseSettings } from './clickhouse-settings.js';
import { environmentSchema, type Environment } from './config-schema.js';
import { resolveInstanceSecret } from './secret-file.js';
import { derivePublicUrl } from './public-url.js';
import type { TrustProxy } from './trust-proxy.js';
import { loadModelPrices, type ModelPrices } from './model-prices.js';
import { loadWebhookCaFile } from './webhook-ca.js';

export interface ModelSettings {
  defaultModel: string;
  anthropicApiKey?: string;
  openaiApiKey?: string;
  anthropicBaseUrl?: string;
  openaiBaseUrl?: string;
  openaiCompatibleBaseUrl?: string;
  openaiCompatibleApiKey?: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * Base of the links Docwright writes (local-forge pull requests, the setup page). When
   * DOCWRIGHT_PUBLIC_URL is unset (`publicUrlIsSet` false) it is derived from HOST and PORT
   * here, and `serve` replaces it with its real listening address once it listens
   * (start-server.ts); `worker` refuses to start without the setting.
   */
  publicUrl: string;
  publicUrlIsSet: boolean;
  secret: string;
  logLevel: Environment['DOCWRIGHT_LOG_LEVEL'];
  bodyLimit: number;
  /** Deadlines of the HTTP server, in milliseconds (see build-app.ts). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number };
  /** Whose X-Forwarded-For is believed (see trust-proxy.ts). */
  trustProxy: TrustProxy;
  /**
   * Open connections one client address (an IPv6 /64) may hold; 0 = no cap. Applied only
   * while trustProxy is off: behind a proxy every client shares the proxy's address.
   */
  maxConnectionsPerClient: number;
  models: ModelSettings;
  worker: {
    concurrency: number;
    /**
     * Leases one project may hold at once, counted over every worker (job-queue.ts). The
     * default is one worker's concurrency: a one-worker installation (the usual one, often
     * with one project) loses no throughput, and with more workers one project's backlog
     * leaves the others' slots to other projects.
     */
    jobsPerProject: number;
    maxAttempts: number;
    leaseMs: number;
    retryBaseMs: number;
    modelRetries: number;
    /** Grace of running turns at shutdown (then they are handed back). */
    shutdownTimeoutMs: number;
    /** Fallback poll of an idle worker when no notification woke it. */
    idlePollMs: number;
    /** Cap on the repository's AGENTS.md (or the like) in the agent's system prompt; 0 = not read. */
    repositoryInstructionsMaxBytes: number;
  };
  /** After SIGTERM, keep answering (with /readyz 503) at least this long before the listener closes. */
  shutdownDelayMs: number;
  budgets: { maxSteps: number; maxTokens: number; maxDurationMs: number };
  rateLimitPerHour: number;
  usage: {
    /** The shipped price table with DOCWRIGHT_MODEL_PRICES_FILE's entries on top. */
    prices: ModelPrices;
    /** Tokens (input + output) per project and UTC month for projects without their own budget; null = none. */
    monthlyTokenBudget: number | null;
  };
  forges: {
    githubApiUrl: string;
    githubGitUrl: string;
    gitlabApiUrl: string;
    gitlabGitUrl: string;
  };
  analytics: {
    retentionDays: number;
    /** New visitors one client address may add through the beacon per project and UTC day; 0 = no cap. */
    beaconVisitorsPerAddress: number;
    /** Beacons one client address may send per project and minute, counted across processes; 0 = no limit. */
    beaconRateLimitPerMinute: number;
    /** Set by DOCWRIGHT_ANALYTICS_URL: analytics live in ClickHouse (docs/operations.md, "ClickHouse"). */
    clickhouse: ClickHouseSettings | undefined;
    /** Agent verification (docs/classification.md, "Verification"): off labels every agent hit claimed and fetches nothing. */
    verification: { enabled: boolean; rangeRefreshMs: number | null; rangesFrom: string | null };
  };
  /** Webhook delivery (docs/webhooks.md, "Settings"). */
  webhooks: {
    allowHttp: boolean;
    /** CIDRs webhooks may reach although they are private, loopback or link-local. */
    allowedNetworks: string[];
    /** DOCWRIGHT_WEBHOOK_CA_FILE's certificates (PEM), trusted besides the public roots; null = Node's default store. */
    caCertificates: string[] | null;
    connectTimeoutMs: number;
    timeoutMs: number;
    concurrency: number;
    pollMs: number;
    secretOverlapMs: number;
    retentionMs: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type EnvironmentSource = Record<string, string | undefined>;

/** Validates the environment without touching the disk; used by `loadConfig` and by tests. */
export function parseEnvironment(source: EnvironmentSource): Environment {
  const result = environmentSchema.safeParse(source);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.join('.');
        const value = source[name];
        // Never echo a secret's value back into a log, nor a password inside a URL.
        const shown = value === undefined || /KEY|SECRET|TOKEN|PASSWORD/.test(name) ? '' : ` (got "${maskUrlPasswords(value)}")`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  return result.data;
}

/**
 * The only place that reads process.env. Fails loudly, naming every invalid variable,
 * so a typo never silently falls back to a default.
 */
export function loadConfig(source: EnvironmentSource = process.env): Config {
  const environment = parseEnvironment(source);
  const dataDir = resolve(environment.DOCWRIGHT_DATA_DIR);
  const publicUrl = (environment.DOCWRIGHT_PUBLIC_URL ?? derivePublicUrl(environment.HOST, environment.PORT)).replace(/\/+$/, '');
  return {
    port: environment.PORT,
    host: environment.HOST,
    dataDir,
    databaseUrl: environment.DOCWRIGHT_DATABASE_URL,
    publicUrl,
    publicUrlIsSet: environment.DOCWRIGHT_PUBLIC_URL !== undefined,
    secret: resolveInstanceSecret(dataDir, environment.DOCWRIGHT_SECRET),
    logLevel: environment.DOCWRIGHT_LOG_LEVEL,
    bodyLimit: environment.DOCWRIGHT_BODY_LIMIT,
    http: {
      headersTimeoutMs: Math.round(environment.DOCWRIGHT_HEADERS_TIMEOUT_SECONDS * 1000),
      requestTimeoutMs: Math.round(environment.DOCWRIGHT_REQUEST_TIMEOUT_SECONDS * 1000),
      keepAliveTimeoutMs: Math.round(environment.DOCWRIGHT_KEEP_ALIVE_TIMEOUT_SECONDS * 1000),
      idleTimeoutMs: Math.round(environment.DOCWRIGHT_IDLE_TIMEOUT_SECONDS * 1000),
    },
    trustProxy: environment.DOCWRIGHT_TRUST_PROXY,
    maxConnectionsPerClient: environment.DOCWRIGHT_MAX_CONNECTIONS_PER_CLIENT,
    models: {
      defaultModel: environment.DOCWRIGHT_MODEL,
      anthropicApiKey: environment.ANTHROPIC_API_KEY,
      openaiApiKey: environment.OPENAI_API_KEY,
      anthropicBaseUrl: environment.DOCWRIGHT_ANTHROPIC_BASE_URL,
      openaiBaseUrl: environment.DOCWRIGHT_OPENAI_BASE_URL,
      openaiCompatibleBaseUrl: environment.DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL,
      openaiCompatibleApiKey: environment.DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY,
    },
    worker: {
      concurrency: environment.DOCWRIGHT_WORKER_CONCURRENCY,
      jobsPerProject: environment.DOCWRIGHT_JOBS_PER_PROJECT ?? environment.DOCWRIGHT_WORKER_CONCURRENCY,
      maxAttempts: environment.DOCWRIGHT_JOB_MAX_ATTEMPTS,
      leaseMs: Math.round(environment.DOCWRIGHT_JOB_LEASE_SECONDS * 1000),
      retryBaseMs: Math.round(environment.DOCWRIGHT_JOB_RETRY_BASE_SECONDS * 1000),
      modelRetries: environment.DOCWRIGHT_MODEL_RETRIES,
      shutdownTimeoutMs: environment.DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS * 1000,
      idlePollMs: Math.round(environment.DOCWRIGHT_WORKER_POLL_SECONDS * 1000),
      repositoryInstructionsMaxBytes: environment.DOCWRIGHT_REPOSITORY_INSTRUCTIONS_MAX_BYTES,
    },
    shutdownDelayMs: Math.round(environment.DOCWRIGHT_SHUTDOWN_DELAY_SECONDS * 1000),
    budgets: {
      maxSteps: environment.DOCWRIGHT_JOB_MAX_STEPS,
      maxTokens: environment.DOCWRIGHT_JOB_MAX_TOKENS,
      maxDurationMs: Math.round(environment.DOCWRIGHT_JOB_TIMEOUT_MINUTES * 60_000),
    },
    rateLimitPerHour: environment.DOCWRIGHT_RATE_LIMIT,
    usage: { prices: modelPrices(environment), monthlyTokenBudget: environment.DOCWRIGHT_MONTHLY_TOKEN_BUDGET ?? null },
    forges: {
      githubApiUrl: environment.DOCWRIGHT_GITHUB_API_URL,
      githubGitUrl: environment.DOCWRIGHT_GITHUB_GIT_URL,
      gitlabApiUrl: environment.DOCWRIGHT_GITLAB_API_URL,
      gitlabGitUrl: environment.DOCWRIGHT_GITLAB_GIT_URL,
    },
    analytics: {
      retentionDays: environment.DOCWRIGHT_ANALYTICS_RETENTION_DAYS,
      beaconVisitorsPerAddress: environment.DOCWRIGHT_BEACON_VISITORS_PER_ADDRESS,
      beaconRateLimitPerMinute: environment.DOCWRIGHT_BEACON_RATE_LIMIT,
      clickhouse: clickhouseSettings(environment, dataDir),
      verification: {
        enabled: environment.DOCWRIGHT_AGENT_VERIFICATION === 'on',
        rangeRefreshMs:
          environment.DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS === 0 ? null : Math.round(environment.DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS * 3_600_000),
        rangesFrom: environment.DOCWRIGHT_AGENT_RANGES_FROM ?? null,
      },
    },
    webhooks: webhookSettings(environment),
  };
}

function webhookSettings(environment: Environment): Config['webhooks'] {
  const timeoutMs = Math.round(environment.DOCWRIGHT_WEBHOOK_TIMEOUT_SECONDS * 1000);
  const ca = loadWebhookCaFile(environment.DOCWRIGHT_WEBHOOK_CA_FILE);
  if (ca.problems.length > 0) throw new ConfigError(ca.problems);
  return {
    allowHttp: environment.DOCWRIGHT_WEBHOOK_ALLOW_HTTP === 'on',
    allowedNetworks: (environment.DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
    caCertificates: ca.certificates,
    connectTimeoutMs: Math.min(timeoutMs, 5_000),
    timeoutMs,
    concurrency: environment.DOCWRIGHT_WEBHOOK_CONCURRENCY,
    pollMs: Math.round(environment.DOCWRIGHT_WEBHOOK_POLL_SECONDS * 1000),
    secretOverlapMs: Math.round(environment.DOCWRIGHT_WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000),
    retentionMs: environment.DOCWRIGHT_WEBHOOK_RETENTION_DAYS * 86_400_000,
  };
}

function modelPrices(environment: Environment): ModelPrices {
  const { prices, problems } = loadModelPrices(environment.DOCWRIGHT_MODEL_PRICES_FILE);
  if (problems.length > 0) throw new ConfigError(problems);
  return prices;
}

function clickhouseSettings(environment: Environment, dataDir: string): ClickHouseSettings | undefined {
  if (environment.DOCWRIGHT_ANALYTICS_URL === undefined) {
    const stray = (
      ['DOCWRIGHT_ANALYTICS_USER', 'DOCWRIGHT_ANALYTICS_PASSWORD', 'DOCWRIGHT_ANALYTICS_CLUSTER', 'DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS'] as const
    ).filter((name) => environment[name] !== undefined);
    if (stray.length > 0) throw new ConfigError(stray.map((name) => `${name}: takes effect only with DOCWRIGHT_ANALYTICS_URL, which is unset`));
    return undefined;
  }
  try {
    const settings = parseClickHouseSettings({
      url: environment.DOCWRIGHT_ANALYTICS_URL,
      user: environment.DOCWRIGHT_ANALYTICS_USER,
      password: environment.DOCWRIGHT_ANALYTICS_PASSWORD,
      cluster: environment.DOCWRIGHT_ANALYTICS_CLUSTER,
    });
    return {
      ...settings,
      spoolFile: join(dataDir, CLICKHOUSE_SPOOL_FILE),
      spoolMaxHits: environment.DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS ?? DEFAULT_SPOOL_MAX_HITS,
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    // The value is not echoed: a malformed URL may hold its password where masking cannot find it.
    throw new ConfigError([`DOCWRIGHT_ANALYTICS_URL: ${detail}`]);
  }
}

/** Settings of the client commands (`docwright jobs …`), which talk to a server over HTTP. */
export interface ClientConfig {
  url: string;
  apiKey: string | undefined;
  /** DOCWRIGHT_PROJECT: the default for `--project`, since a key belongs to one project anyway. */
  projectId?: string;
}

export function loadClientConfig(source: EnvironmentSource = process.env): ClientConfig {
  const url = (source.DOCWRIGHT_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  try {
    new URL(url);
  } catch {
    throw new ConfigError([`DOCWRIGHT_URL: must be a URL such as http://127.0.0.1:3000 (got "${maskUrlPasswords(url)}")`]);
  }
  return { url, apiKey: source.DOCWRIGHT_API_KEY?.trim() || undefined, projectId: source.DOCWRIGHT_PROJECT?.trim() || undefined };
}
