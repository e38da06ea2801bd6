import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AnalyticsService } from '../../../src/analytics/analytics-service.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { clickhouseCount, clickhouseRows } from '../../helpers/clickhouse-rows.js';
import { TEST_SECRET } from '../../helpers/test-app.js';

/**
 * Two processes (two services with their own clients and memory) storing the same new
 * event ids at the same instant: the id check and the insert are not atomic across
 * processes, so both may store a copy (docs/analytics.md, "ClickHouse"). The reports must
 * stay exact anyway.
 */
describe('ClickHouse: event ids raced by two processes', () => {
  let kit: AnalyticsKit;
  let services: AnalyticsService[];
  beforeEach(async () => {
    kit = await createAnalyticsKit('clickhouse');
    services = [0, 1].map(
      () =>
        new AnalyticsService({
          database: kit.t.services.database,
          clock: kit.t.clock,
          secret: TEST_SECRET,
          retentionDays: 30,
          projectSettings: async () => ({}),
          // The app's settings: two processes on one data directory share its ClickHouse spool file.
          clickhouse: kit.t.config.analytics.clickhouse,
        }),
    );
  });
  afterEach(async () => {
    for (const service of services) await service.close();
    await kit.close();
  });

  test('hits and visitors count each event once, however many copies are stored', async () => {
    const today = Math.floor(kit.t.clock.now() / DAY);
    const events = Array.from({ length: 40 }, (_, index) => ({
      id: `race-${index}`,
      path: `/p${index % 4}`,
      visitorId: `v${index % 10}`,
      userAgent: index % 5 === 0 ? USER_AGENTS.ai : USER_AGENTS.human,
      timestamp: new Date((today - 1 - (index % 3)) * DAY + index * 1000).toISOString(),
    }));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(services.map((service) => service.ingest(kit.projectId, events)));
      for (const answer of answers) expect(answer.accepted).toBe(40);
      // Every later round finds the ids stored, whichever process asks.
      if (round > 0) for (const answer of answers) expect(answer.duplicates).toBe(40);
    }
    const stored = await clickhouseCount(kit.t, 'select count() from analytics_hits');
    expect(stored).toBeGreaterThanOrEqual(40);
    expect(stored).toBeLessThanOrEqual(80);
    // Whether or not this run's race produced copies, make sure there are: the worst case.
    await clickhouseRows(kit.t, 'insert into analytics_hits select * from analytics_hits');
    expect(await clickhouseCount(kit.t, 'select count() from analytics_hits')).toBe(2 * stored);
    for (const service of services) {
      const traffic = await service.traffic(kit.projectId);
      expect(traffic.classes.reduce((sum, entry) => sum + entry.hits, 0)).toBe(40);
      expect(traffic.classes.find((entry) => entry.class === 'ai')!.hits).toBe(8);
      // A date-time edge is counted from raw hits, copies included: still once per event.
      const edge = await service.traffic(kit.projectId, { from: (today - 3) * DAY + 1, to: kit.t.clock.now() });
      expect(edge.classes.reduce((sum, entry) => sum + entry.hits, 0)).toBe(40);
      const visitors = await service.visitors(kit.projectId, { limit: 250 });
      expect(visitors.totals).toEqual({ human: 8, ai: 2, total: 10 });
    }
  });
});
