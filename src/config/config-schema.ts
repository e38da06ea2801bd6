import { z } from 'zod';
import { isIP } from 'node:net';
import { trustProxySchema } from './trust-proxy.js';
import { DEFAULT_MODEL } from './default-model.js';

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInteger = z.coerce.number().int().positive();
const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();
const optionalUrl = optionalText.pipe(z.url().optional());
/** Fractions allowed, so tests can use short timeouts. */
const seconds = z.coerce.number().positive().max(86_400);
export const MIN_IDLE_TIMEOUT_SECONDS = 20;

/** `ADDRESS/PREFIX` with a prefix the address's family allows. */
function isCidr(text: string): boolean {
  const [address = '', prefix = '', ...rest] = text.split('/');
  const family = isIP(address);
  return family !== 0 && rest.length === 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32);
}

/**
 * Every environment variable Docwright reads, with its default. The README's
 * configuration table is written from this schema; keep them in step.
 */
export const environmentSchema = z
  .object({
    PORT: port.default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    DOCWRIGHT_DATA_DIR: z.string().min(1).default('./data'),
    DOCWRIGHT_DATABASE_URL: optionalText.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL (leave unset for SQLite)')
        .optional(),
    ),
    DOCWRIGHT_PUBLIC_URL: optionalUrl,
    DOCWRIGHT_MODEL: z
      .string()
      .regex(/^(anthropic|openai|openai-compatible):\S+$/, 'must look like provider:model, provider one of anthropic, openai, openai-compatible')
      .default(DEFAULT_MODEL),
    ANTHROPIC_API_KEY: optionalText,
    OPENAI_API_KEY: optionalText,
    DOCWRIGHT_ANTHROPIC_BASE_URL: optionalUrl,
    DOCWRIGHT_OPENAI_BASE_URL: optionalUrl,
    DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: optionalUrl,
    DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: optionalText,
    DOCWRIGHT_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    DOCWRIGHT_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DOCWRIGHT_BODY_LIMIT: positiveInteger.default(1_048_576),
    DOCWRIGHT_TRUST_PROXY: trustProxySchema,
    DOCWRIGHT_MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(0).max(1_000_000).default(256),
    DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: seconds.default(20),
    DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: seconds.default(120),
    DOCWRIGHT_KEEP_ALIVE_TIMEOUT_SECONDS: seconds.default(72),
    DOCWRIGHT_IDLE_TIMEOUT_SECONDS: z.coerce
      .number()
      .min(0)
      .max(86_400)
      .refine(
        (value) => value === 0 || value >= MIN_IDLE_TIMEOUT_SECONDS,
        `must be 0 (off) or at least ${MIN_IDLE_TIMEOUT_SECONDS}: event streams write a keep-alive only every 15 seconds`,
      )
      .default(600),
    DOCWRIGHT_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    // Unset: DOCWRIGHT_WORKER_CONCURRENCY (load-config.ts).
    DOCWRIGHT_JOBS_PER_PROJECT: z.coerce.number().int().min(1).max(10_000).optional(),
    DOCWRIGHT_JOB_LEASE_SECONDS: z.coerce.number().positive().max(3_600).default(60),
    DOCWRIGHT_JOB_RETRY_BASE_SECONDS: z.coerce.number().min(0).max(3_600).default(2),
    DOCWRIGHT_MODEL_RETRIES: z.coerce.number().int().min(0).max(10).default(4),
    DOCWRIGHT_JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
    DOCWRIGHT_JOB_MAX_STEPS: z.coerce.number().int().min(1).max(1_000).default(50),
    DOCWRIGHT_REPOSITORY_INSTRUCTIONS_MAX_BYTES: z.coerce.number().int().min(0).max(262_144).default(32_768),
    DOCWRIGHT_JOB_MAX_TOKENS: positiveInteger.default(2_000_000),
    DOCWRIGHT_JOB_TIMEOUT_MINUTES: z.coerce
      .number()
      .positive()
      .max(24 * 60)
      .default(15),
    DOCWRIGHT_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(100),
    DOCWRIGHT_MODEL_PRICES_FILE: optionalText,
    DOCWRIGHT_MONTHLY_TOKEN_BUDGET: z.coerce.number().int().min(1).max(1e15).optional(),
    DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().positive().max(3_600).default(30),
    DOCWRIGHT_SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(600).default(0),
    DOCWRIGHT_WORKER_POLL_SECONDS: z.coerce.number().min(0.05).max(600).default(1),
    DOCWRIGHT_GITHUB_API_URL: z.url().default('https://api.github.com'),
    DOCWRIGHT_GITHUB_GIT_URL: z.string().min(1).default('https://github.com'),
    DOCWRIGHT_GITLAB_API_URL: z.url().default('https://gitlab.com/api/v4'),
    DOCWRIGHT_GITLAB_GIT_URL: z.string().min(1).default('https://gitlab.com'),
    DOCWRIGHT_ANALYTICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
    DOCWRIGHT_ANALYTICS_URL: optionalText,
    DOCWRIGHT_ANALYTICS_USER: optionalText,
    DOCWRIGHT_ANALYTICS_PASSWORD: optionalText,
    DOCWRIGHT_ANALYTICS_CLUSTER: optionalText,
    // At least one full events batch (1,000 hits); 100M hits is about 6 GB of spool file.
    DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS: z.coerce.number().int().min(1_000).max(100_000_000).optional(),
    DOCWRIGHT_BEACON_VISITORS_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).default(20),
    DOCWRIGHT_BEACON_RATE_LIMIT: z.coerce.number().int().min(0).max(1_000_000).default(120),
    DOCWRIGHT_AGENT_VERIFICATION: z.enum(['on', 'off']).default('on'),
    DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS: z.coerce.number().min(0).max(720).default(24),
    // A mirror of the operators' lists (`<url>/<list id>.json`), trusted like `agents update --from`.
    DOCWRIGHT_AGENT_RANGES_FROM: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    DOCWRIGHT_WEBHOOK_ALLOW_HTTP: z.enum(['on', 'off']).default('off'),
    DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: optionalText.pipe(
      z
        .string()
        .refine((value) => value.split(',').every((entry) => isCidr(entry.trim())), 'must be a comma-separated list of CIDRs, e.g. 10.0.0.0/8,fd00::/8')
        .optional(),
    ),
    DOCWRIGHT_WEBHOOK_CA_FILE: optionalText,
    DOCWRIGHT_WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().max(60).default(15),
    DOCWRIGHT_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    DOCWRIGHT_WEBHOOK_POLL_SECONDS: z.coerce.number().min(0.05).max(600).default(10),
    DOCWRIGHT_WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().min(0).max(720).default(24),
    DOCWRIGHT_WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  })
  .superRefine((environment, context) => {
    // Node refuses a header deadline beyond the whole request's, and it would mean nothing.
    if (environment.DOCWRIGHT_HEADERS_TIMEOUT_SECONDS > environment.DOCWRIGHT_REQUEST_TIMEOUT_SECONDS) {
      context.addIssue({
        code: 'custom',
        path: ['DOCWRIGHT_HEADERS_TIMEOUT_SECONDS'],
        message: `must not exceed DOCWRIGHT_REQUEST_TIMEOUT_SECONDS (${environment.DOCWRIGHT_REQUEST_TIMEOUT_SECONDS})`,
      });
    }
  });

export type Environment = z.infer<typeof environmentSchema>;
