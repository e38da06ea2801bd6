import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';
import { createAnalyticsKit, dayTime, USER_AGENTS, type AnalyticsKit } from '../../helpers/analytics-kit.js';

/** The reports over events as the ingest pipeline classifies and stores them (not rows written by hand). */
describe.each(ANALYTICS_BACKENDS)('reports from ingested events [%s]', (dialect) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit.close());

  test('an assistant reading Markdown and llms.txt, a 404 it got, and a person sent by ChatGPT', async () => {
    const timestamp = dayTime(kit.t, -1, 3_600_000);
    const events = [
      { timestamp, path: '/guide.md', ip: '203.0.113.5', userAgent: USER_AGENTS.ai },
      { timestamp, path: '/llms.txt', ip: '203.0.113.5', userAgent: USER_AGENTS.ai },
      { timestamp, path: '/old-page', ip: '203.0.113.5', userAgent: USER_AGENTS.ai, status: 404 },
      { timestamp, path: '/guide', visitorId: 'person', userAgent: USER_AGENTS.human, referrer: 'https://chatgpt.com/' },
    ];
    const sent = await kit.send(events);
    expect(sent.json()).toMatchObject({ accepted: 4, rejected: [] });

    const agents = (await kit.get('agents')).json();
    expect(agents.agents).toHaveLength(1);
    expect(agents.agents[0]).toMatchObject({
      agent: 'ChatGPT',
      class: 'ai',
      category: 'ai-assistant',
      hits: 3,
      visitors: 1,
      pages: 3,
      markdownReads: 1,
      llmsTxtReads: 1,
    });
    const errors = (await kit.get('agent-errors')).json();
    expect(errors.errors).toEqual([{ path: '/old-page', status: 404, hits: 1, visitors: 1, agents: ['ChatGPT'] }]);
    const pages = (await kit.get('pages', { sort: 'path' })).json();
    expect(pages.pages.find((page: { path: string }) => page.path === '/guide')).toMatchObject({ humanReaders: 1, aiReaders: 0, aiReferrals: 1 });
    expect(pages.referralSources).toEqual([{ source: expect.stringMatching(/chatgpt/i), referrals: 1, visitors: 1 }]);
  });
});
