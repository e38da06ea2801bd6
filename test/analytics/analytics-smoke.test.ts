import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createAnalyticsKit, dayTime, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';

describe.each(ANALYTICS_BACKENDS)('analytics end to end [%s]', (dialect) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit.close());

  test('counts humans and ai per page and site-wide, crawlers only in traffic', async () => {
    const response = await kit.send([
      { timestamp: dayTime(kit.t, -2, 1000), path: '/a', ip: '10.0.0.1', userAgent: USER_AGENTS.human },
      { timestamp: dayTime(kit.t, -1, 1000), path: '/a', ip: '10.0.0.1', userAgent: USER_AGENTS.human },
      { timestamp: dayTime(kit.t, -1, 2000), path: '/b', ip: '10.0.0.2', userAgent: USER_AGENTS.ai },
      { timestamp: dayTime(kit.t, -1, 3000), path: '/b.md', visitorId: 'v-3', userAgent: USER_AGENTS.humanFirefox },
      { timestamp: dayTime(kit.t, -1, 4000), path: '/a', ip: '10.0.0.4', userAgent: USER_AGENTS.bot },
      { timestamp: dayTime(kit.t, -1, 5000), path: '/a', ip: '10.0.0.5', userAgent: USER_AGENTS.aiTraining },
    ]);
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ accepted: 6, duplicates: 0, rejected: [] });
    const visitors = await kit.get('visitors');
    expect(visitors.statusCode).toBe(200);
    expect(visitors.json()).toEqual({
      totals: { human: 1, ai: 2, total: 3 },
      visitors: [
        { path: '/a', human: 1, ai: 0, total: 1 },
        { path: '/b', human: 0, ai: 1, total: 1 },
        { path: '/b.md', human: 0, ai: 1, total: 1 },
      ],
      hasMore: false,
    });
    const traffic = (await kit.get('traffic')).json();
    expect(traffic.classes).toEqual([
      { class: 'human', hits: 2, visitors: 1 },
      { class: 'ai', hits: 2, visitors: 2 },
      { class: 'ai-search', hits: 0, visitors: 0 },
      { class: 'ai-training', hits: 1, visitors: 1 },
      { class: 'bot', hits: 1, visitors: 1 },
    ]);
    const daily = await kit.get('visitors/daily', { dateFrom: dayTime(kit.t, -2).slice(0, 10), dateTo: dayTime(kit.t, 0).slice(0, 10) });
    expect(daily.json().days).toEqual([
      { date: dayTime(kit.t, -2).slice(0, 10), human: 1, ai: 0, total: 1 },
      { date: dayTime(kit.t, -1).slice(0, 10), human: 1, ai: 2, total: 3 },
    ]);
  });
});
