import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, createTestProject, type TestApp } from './test-app.js';
import type { AnalyticsBackend } from './test-database.js';

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
  get(report: 'visitors' | 'visitors/daily' | 'traffic', query?: Record<string, string | number>, key?: string): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
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
    close: () => t.close(),
  };
}

/** An ISO timestamp `days` whole days and `ms` after UTC midnight of the kit clock's day. */
export function dayTime(t: TestApp, days: number, ms = 0): string {
  const midnight = Math.floor(t.clock.now() / DAY) * DAY;
  return new Date(midnight + days * DAY + ms).toISOString();
}
