import type { LightMyRequestResponse } from 'fastify';
import { AnalyticsService } from '../../src/analytics/analytics-service.js';
import type { AnalyticsStore } from '../../src/analytics/analytics-store.js';
import type { FoldSchedulerOptions } from '../../src/analytics/fold-scheduler.js';
import { sqlAnalyticsStore } from '../../src/analytics/sql-analytics-store.js';
import { createTestApp, createTestProject, TEST_SECRET, type TestApp } from './test-app.js';
import type { AnalyticsBackend } from './test-database.js';
import type { OracleHit } from './analytics-oracle.js';

/** Real user agents per class (classified as such by src/analytics/classification). */
export const USER_AGENTS = {
  human: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  humanFirefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  ai: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  aiClaude: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
  aiSearch: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  aiTraining: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot',
  bot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
} as const;

export const DAY = 86_400_000;

export interface AnalyticsKit {
  t: TestApp;
  projectId: string;
  adminKey: string;
  ingestKey: string;
  /** POST /events with the ingest key. */
  send(events: unknown[], key?: string): Promise<LightMyRequestResponse>;
  /** GET an analytics report with the admin key; `query` becomes the query string. */
  get(
    report: 'visitors' | 'views' | 'visitors/daily' | 'traffic' | 'agents' | 'pages' | 'agent-errors' | 'summary',
    query?: Record<string, string | number>,
    key?: string,
  ): Promise<LightMyRequestResponse>;
  /** Folds pending hits: all of them, or at most `steps` transactions of `chunkSize` hits. Returns how many. */
  fold(chunkSize?: number, steps?: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Reports no longer fold; a test that wants hits folded (late hits landing between folded
 * visit days) folds through a store of its own on the app's database. Folds are
 * serialised in the database (SQLite's one writer, PostgreSQL's fold lock), so this runs
 * safely beside the app's own background fold.
 */
export function foldPending(t: TestApp, chunkSize = 20_000, steps = Number.POSITIVE_INFINITY): Promise<number> {
  // ClickHouse keeps exact states of its own: nothing to fold.
  if (t.config.analytics.clickhouse) return Promise.resolve(0);
  const database = t.services.database;
  const store: AnalyticsStore = sqlAnalyticsStore(database);
  let taken = 0;
  return store.fold(chunkSize, () => Promise.resolve(++taken < steps));
}

export async function createAnalyticsKit(dialect: AnalyticsBackend, environment: Record<string, string> = {}): Promise<AnalyticsKit> {
  const t = await createTestApp(dialect, environment);
  const projectId = (await createTestProject(t.services)).id;
  const adminKey = (await t.services.keys.create({ projectId, scope: 'admin' })).key;
  const ingestKey = (await t.services.keys.create({ projectId, scope: 'ingest' })).key;
  return {
    t,
    projectId,
    adminKey,
    ingestKey,
    send: (events, key = ingestKey) =>
      t.app.inject({ method: 'POST', url: `/v1/analytics/${projectId}/events`, headers: { authorization: `Bearer ${key}` }, payload: { events } }),
    get: (report, query = {}, key = adminKey) => {
      const search = new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, String(value)])).toString();
      return t.app.inject({
        method: 'GET',
        url: `/v1/analytics/${projectId}/${report}${search ? `?${search}` : ''}`,
        headers: { authorization: `Bearer ${key}` },
      });
    },
    fold: (chunkSize, steps) => foldPending(t, chunkSize, steps),
    close: () => t.close(),
  };
}

/** An ISO timestamp `days` whole days and `ms` after UTC midnight of the kit clock's day. */
export function dayTime(t: TestApp, days: number, ms = 0): string {
  const midnight = Math.floor(t.clock.now() / DAY) * DAY;
  return new Date(midnight + days * DAY + ms).toISOString();
}

/** A second analytics service on the kit's database, with its own fold settings (close it before the kit). */
export function kitAnalyticsService(kit: AnalyticsKit, fold: FoldSchedulerOptions = {}, retentionDays = 30): AnalyticsService {
  return new AnalyticsService({
    database: kit.t.services.database,
    clock: kit.t.clock,
    secret: TEST_SECRET,
    retentionDays,
    projectSettings: async () => ({}),
    fold,
    clickhouse: kit.t.config.analytics.clickhouse,
  });
}

/**
 * Ingests oracle hits through `service`, `size` events per call, and fails unless every
 * one is accepted. Small batches: on PostgreSQL a fold step takes whole batches, so tests
 * can fold part of them.
 */
export async function ingestInBatches(service: AnalyticsService, projectId: string, hits: readonly OracleHit[], size = 5): Promise<void> {
  for (let start = 0; start < hits.length; start += size) {
    const events = hits
      .slice(start, start + size)
      .map((hit) => ({ timestamp: new Date(hit.at).toISOString(), path: hit.path, visitorId: hit.visitor, userAgent: hit.userAgent }));
    const { accepted } = await service.ingest(projectId, events);
    if (accepted !== events.length) throw new Error(`${accepted} of ${events.length} events accepted`);
  }
}
