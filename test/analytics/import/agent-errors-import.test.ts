import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importLogs } from '../../../src/analytics/import/import-logs.js';
import { formatImportSummary } from '../../../src/analytics/import/format-import-summary.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';
import { createAnalyticsKit, kitAnalyticsService, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { writeLog } from './import-log-fixtures.js';

const PERSON = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const CHATGPT_USER = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot';

describe.each(ANALYTICS_BACKENDS)("agents' 4xx lines of an access log [%s]", (dialect) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit.close());

  it('reach the agent-errors report; people’s 4xx stay out, and views and visitors count what they counted before', async () => {
    const start = kit.t.clock.now() - 3_600_000;
    const line = (second: number, path: string, status: number, agent: string, ip = '203.0.113.5') => {
      const time = new Date(start + second * 1000);
      const month = time.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
      const stamp = `${String(time.getUTCDate()).padStart(2, '0')}/${month}/${time.getUTCFullYear()}:${time.toISOString().slice(11, 19)} +0000`;
      return `${ip} - - [${stamp}] "GET ${path} HTTP/1.1" ${status} 512 "-" "${agent}"`;
    };
    const file = writeLog(
      'agent-404.log',
      [
        line(0, '/docs/a', 200, PERSON),
        line(1, '/docs/missing', 404, PERSON),
        line(2, '/docs/missing', 404, CHATGPT_USER, '198.51.100.1'),
        line(3, '/docs/missing', 404, CHATGPT_USER, '198.51.100.1'),
        line(4, '/docs/old.md', 410, GPTBOT, '198.51.100.2'),
        // A bot's 404 for a non-page (favicon) and a line without a user agent tell nothing.
        line(5, '/favicon.ico', 404, GPTBOT, '198.51.100.2'),
        line(6, '/docs/gone', 404, '-', '198.51.100.3'),
        line(7, '/docs/a', 200, CHATGPT_USER, '198.51.100.1'),
      ].join('\n'),
    );
    const analytics = kitAnalyticsService(kit);
    try {
      const summary = await importLogs({
        files: [file],
        send: async (hits) => {
          const result = await analytics.ingest(kit.projectId, hits);
          return { accepted: result.accepted, rejected: result.rejected.length };
        },
      });
      expect(summary).toMatchObject({ lines: 8, hits: 5, agentErrors: 3, skippedNotPage: 3, accepted: 5, rejected: 0 });
      expect(summary.notPages.clientError).toBe(3);
      expect(summary.lines).toBe(summary.hits + summary.skippedNotPage + summary.malformed);
      expect(formatImportSummary(summary)).toMatch(/agents' 4xx +3/);

      const { errors } = await analytics.agentErrors(kit.projectId, {});
      expect(errors.map(({ path, status, hits, agents }) => ({ path, status, hits, agents }))).toEqual([
        { path: '/docs/missing', status: 404, hits: 2, agents: ['ChatGPT'] },
        { path: '/docs/old.md', status: 410, hits: 1, agents: ['GPTBot'] },
      ]);

      // The person's 404 is still not a view; each stored hit counts as the spec says (a view
      // is a hit, human and ai by class): ChatGPT-User's 404s are its hits, like the same
      // request sent to the events API with its status; GPTBot is a crawler, in neither column.
      const views = await analytics.views(kit.projectId, {});
      expect(views.totals).toEqual({ human: 1, ai: 3, total: 4 });
      expect(views.views.find((row) => row.path === '/docs/old.md')).toBeUndefined();
      const visitors = await analytics.visitors(kit.projectId, {});
      expect(visitors.totals).toMatchObject({ human: 1, ai: 1 });
    } finally {
      await analytics.close();
    }
  });
});
