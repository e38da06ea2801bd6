import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../../src/analytics/analytics-service.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';
import { createAnalyticsKit, DAY, dayTime, kitAnalyticsService, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { storeTaxonomyHits, type TaxonomyHit } from '../../helpers/taxonomy-hits.js';

const REPORTS = ['agents', 'pages', 'agent-errors', 'summary'] as const;

describe.each(ANALYTICS_BACKENDS)('AI reader report routes [%s]', (dialect) => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
    service = kitAnalyticsService(kit, {}, 400);
  });
  afterEach(async () => {
    await service.close();
    await kit.close();
  });
  const get = (report: (typeof REPORTS)[number], query: Record<string, string | number> = {}) => kit.get(report, query);
  const at = (days: number) => Date.parse(dayTime(kit.t, days, 3_600_000));

  test('agents, pages, agent-errors and the weekly summary over stored taxonomy columns', async () => {
    const hits: TaxonomyHit[] = [
      // The last complete week: days -7 … -1.
      { at: at(-2), path: '/guide', visitor: 1, class: 'human' },
      { at: at(-2), path: '/guide', visitor: 2, class: 'human', referral: 'chatgpt.com' },
      { at: at(-3), path: '/api', visitor: 10, class: 'ai', agent: 'ChatGPT', category: 'ai-assistant', verification: 'verified', readKind: 'markdown' },
      { at: at(-3), path: '/api', visitor: 10, class: 'ai', agent: 'ChatGPT', category: 'ai-assistant', verification: 'claimed', status: 404 },
      { at: at(-4), path: '/llms.txt', visitor: 11, class: 'ai', agent: 'Cursor', category: 'ai-coding-agent', verification: 'claimed', readKind: 'llms-txt' },
      { at: at(-4), path: '/api', visitor: 12, class: 'ai-training', agent: 'GPTBot', category: 'ai-training', verification: 'verified', status: 404 },
      // The week before, and today (outside the default summary).
      { at: at(-9), path: '/guide', visitor: 3, class: 'human' },
      { at: at(0), path: '/guide', visitor: 4, class: 'human' },
    ];
    await storeTaxonomyHits(service, kit.projectId, hits);
    const week = { dateFrom: dayTime(kit.t, -7).slice(0, 10), dateTo: dayTime(kit.t, 0).slice(0, 10) };

    const agents = (await get('agents', week)).json();
    expect(agents.dateFrom).toBe(`${week.dateFrom}T00:00:00.000Z`);
    expect(agents.agents.map((entry: { agent: string; hits: number; verifiedShare: number }) => [entry.agent, entry.hits, entry.verifiedShare])).toEqual([
      ['ChatGPT', 2, 0.5],
      ['Cursor', 1, 0],
      ['GPTBot', 1, 1],
    ]);
    expect(agents.agents[1]).toMatchObject({ category: 'ai-coding-agent', llmsTxtReads: 1, markdownReads: 0, pages: 1 });

    const pages = (await get('pages', { ...week, sort: 'agentSkew' })).json();
    expect(pages.pages.map((page: { path: string; agentSkew: number }) => [page.path, page.agentSkew])).toEqual([
      ['/api', 2],
      ['/llms.txt', 1],
      ['/guide', 0],
    ]);
    expect(pages.pages[0].aiReadersByCategory).toMatchObject({ 'ai-assistant': 1, 'ai-training': 1, 'ai-agent': 0 });
    expect(pages.referralSources).toEqual([{ source: 'chatgpt.com', referrals: 1, visitors: 1 }]);

    const errors = (await get('agent-errors', week)).json();
    expect(errors.errors).toEqual([{ path: '/api', status: 404, hits: 2, visitors: 2, agents: ['ChatGPT', 'GPTBot'] }]);
    expect(errors.hasMore).toBe(false);

    const summary = (await get('summary')).json();
    expect(summary.dateFrom).toBe(agents.dateFrom);
    expect(summary.dateTo).toBe(`${week.dateTo}T00:00:00.000Z`);
    expect(summary.visitors).toEqual({ human: 2, ai: 2, total: 4, previous: { human: 1, ai: 0, total: 1 } });
    expect(summary.views).toMatchObject({ human: 2, ai: 3, total: 5 });
    expect(summary.crawlerHits).toEqual({ 'ai-search': 0, 'ai-training': 1, bot: 0 });
    expect(summary.aiReaders.agentFavouredPages.map((page: { path: string }) => page.path)).toEqual(['/api', '/llms.txt']);
    expect(summary.aiReaders.agentErrors).toEqual(errors.errors);
  });

  test('bad input is a 400 problem naming the field; a summary before the raw-hit retention keeps its rollup parts', async () => {
    const cases: Array<[(typeof REPORTS)[number], Record<string, string | number>, string[]]> = [
      ['agents', { limit: 0 }, ['limit']],
      ['agent-errors', { offset: -1 }, ['offset']],
      ['pages', { sort: 'views', order: 'up' }, ['order', 'sort']],
      ['pages', { dateFrom: '2026-05-10', dateTo: '2026-05-09' }, ['dateFrom']],
      ['agents', { dateFrom: new Date(kit.t.clock.now() - 401 * DAY).toISOString().slice(0, 10) }, ['dateFrom']],
      ['summary', { dateFrom: '2020-01-01', dateTo: '2020-06-01' }, ['dateFrom']],
      ['summary', { dateFrom: 'last week' }, ['dateFrom']],
    ];
    for (const [report, query, fields] of cases) {
      const response = await get(report, query);
      expect(response.statusCode, `${report} ${JSON.stringify(query)}`).toBe(400);
      expect(response.json()).toMatchObject({ code: 'validation_failed', error: expect.any(String) });
      expect(
        response
          .json()
          .errors.map((error: { path: string }) => error.path)
          .sort(),
      ).toEqual(fields);
    }
    const old = await get('summary', { dateFrom: '2020-01-01' });
    expect(old.statusCode).toBe(200);
    expect(old.json()).toMatchObject({ dateTo: '2020-01-08T00:00:00.000Z', previousFrom: '2019-12-25T00:00:00.000Z', aiReaders: null });
  });

  test('every report route is in the OpenAPI document, with its parameters; an ingest key may not read them', async () => {
    const document = (await kit.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const report of REPORTS) {
      const operation = document.paths[`/v1/analytics/{projectId}/${report}`]?.get;
      expect(operation, report).toBeDefined();
      expect(operation.responses['400'], report).toBeDefined();
      const names = operation.parameters.map((parameter: { name: string }) => parameter.name);
      expect(names).toEqual(expect.arrayContaining(['projectId', 'dateFrom', 'dateTo', ...(report === 'summary' ? [] : ['limit', 'offset'])]));
      expect((await kit.get(report, {}, kit.ingestKey)).statusCode, report).toBe(403);
    }
  });
});
