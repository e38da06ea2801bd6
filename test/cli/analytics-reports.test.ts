import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AnalyticsService } from '../../src/analytics/analytics-service.js';
import { DAY } from '../helpers/analytics-kit.js';
import { runCli } from '../helpers/run-cli.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';
import { TEST_SECRET } from '../helpers/test-app.js';
import { storeTaxonomyHits, type TaxonomyHit } from '../helpers/taxonomy-hits.js';

let server: ListeningTestApp;
let midnight: number;

const cli = (args: string[]) => runCli(['analytics', ...args, '--project', server.projectId], { DOCWRIGHT_URL: server.url, DOCWRIGHT_API_KEY: server.apiKey });
const api = async (path: string) =>
  (await fetch(`${server.url}/v1/analytics/${server.projectId}/${path}`, { headers: { authorization: `Bearer ${server.apiKey}` } })).json() as Promise<
    Record<string, unknown>
  >;

beforeAll(async () => {
  server = await startListeningTestApp('sqlite');
  midnight = Math.floor(server.testApp.clock.now() / DAY) * DAY;
  const at = (days: number) => midnight + days * DAY + 3_600_000;
  const hits: TaxonomyHit[] = [
    { at: at(-2), path: '/guide', visitor: 1, class: 'human', referral: 'perplexity.ai' },
    { at: at(-3), path: '/api', visitor: 10, class: 'ai', agent: 'ChatGPT', category: 'ai-assistant', verification: 'verified', readKind: 'markdown' },
    { at: at(-3), path: '/api', visitor: 10, class: 'ai', agent: 'ChatGPT', category: 'ai-assistant', verification: 'claimed', status: 404 },
    ...Array.from({ length: 7 }, (_, index): TaxonomyHit => ({
      at: at(-4),
      path: `/ref/${index}`,
      visitor: 20,
      class: 'ai',
      agent: 'Cursor',
      category: 'ai-coding-agent',
    })),
  ];
  const t = server.testApp;
  const service = new AnalyticsService({
    database: t.services.database,
    clock: t.clock,
    secret: TEST_SECRET,
    retentionDays: 400,
    projectSettings: async () => ({}),
  });
  await storeTaxonomyHits(service, server.projectId, hits);
  await service.close();
});
afterAll(async () => server?.close());

describe('docwright analytics agents, pages, agent-errors, summary', () => {
  test('agents: a table of the API rows, and --json with every row', async () => {
    const [table, json] = await Promise.all([cli(['agents']), cli(['agents', '--json', '--limit', '1'])]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^AGENT\s+CATEGORY\s+HITS\s+VISITORS\s+VERIFIED/);
    expect(table.stdout).toMatch(/Cursor\s+ai-coding-agent\s+7\s+1\s+0\.0%/);
    expect(table.stdout).toMatch(/ChatGPT\s+ai-assistant\s+2\s+1\s+50\.0%\s+0\s+1\s+1\s+0/);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.agents).toEqual([((await api('agents')).agents as unknown[])[0]]);
    expect(parsed.hasMore).toBe(true);
  });

  test('pages walks every page with --all (progress stays off stdout); --sort agentSkew puts agent-only pages first', async () => {
    const all = JSON.parse((await cli(['pages', '--all', '--json', '--sort', 'path'])).stdout);
    expect(all.pages.map((page: { path: string }) => page.path)).toEqual(['/api', '/guide', ...Array.from({ length: 7 }, (_, index) => `/ref/${index}`)]);
    expect(all.referralSources).toEqual([{ source: 'perplexity.ai', referrals: 1, visitors: 1 }]);
    const skew = await cli(['pages', '--sort', 'agentSkew', '--limit', '2']);
    const rows = skew.stdout.split('\n').slice(1, 3);
    expect(rows[0]).toMatch(/^\/api\s+0\s+1\s+1\s/);
    expect(skew.stdout).toContain('… more rows');
  });

  test('agent-errors lists page, status and agents', async () => {
    const result = await cli(['agent-errors']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/404\s+1\s+1\s+\/api\s+ChatGPT/);
  });

  test('summary: Markdown by default, Slack and --json on request; bad dates fail before any request', async () => {
    const markdown = await cli(['summary']);
    expect(markdown.code).toBe(0);
    const last = new Date(midnight - 1).toISOString().slice(0, 10);
    expect(markdown.stdout).toContain(`**Docs readers, ${new Date(midnight - 7 * DAY).toISOString().slice(0, 10)} to ${last} (UTC)**`);
    expect(markdown.stdout).toContain('- 3 unique visitors (1 human, 2 AI; new vs 0 the period before)');
    expect(markdown.stdout).toContain('- `/api` 404: 1 hit (ChatGPT)');
    expect(markdown.stdout).toContain('- perplexity.ai: 1 view, 1 visitor');
    const slack = await cli(['summary', '--format', 'slack']);
    expect(slack.stdout).toMatch(/^\*Docs readers, /);
    expect(slack.stdout).toContain('• ChatGPT (ai-assistant): 2 hits, 1 page, 50% verified, 1 Markdown/llms.txt read');
    expect(JSON.parse((await cli(['summary', '--json'])).stdout)).toEqual(await api('summary'));
    const reversed = await cli(['summary', '--from', '2026-05-20', '--to', '2026-05-01']);
    expect(reversed.code).not.toBe(0);
    expect(reversed.stderr).toContain('--from must not be after --to');
  });

  test('every report command has help text', async () => {
    for (const command of ['views', 'agents', 'agents report', 'agents update', 'pages', 'agent-errors', 'summary']) {
      const help = await runCli(['analytics', ...command.split(' '), '--help'], {});
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toMatch(/Examples?:/);
    }
  });
});
