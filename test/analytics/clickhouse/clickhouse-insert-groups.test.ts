import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../../src/analytics/analytics-service.js';
import { createAnalyticsKit, DAY, kitAnalyticsService, USER_AGENTS, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { clickhouseCount } from '../../helpers/clickhouse-rows.js';
import { createTestProject } from '../../helpers/test-app.js';

/**
 * A process writes every site's hits through one queue, grouped across requests and
 * sites into one INSERT (ClickHouseHitWriter). Event ids are per site: a group holding
 * two sites' batches with the same ids must check each site's ids on their own.
 */
describe('ClickHouse: insert groups across sites', () => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  beforeEach(async () => {
    kit = await createAnalyticsKit('clickhouse', { DOCWRIGHT_ANALYTICS_INSERT_LINGER_MS: '20' });
    service = kitAnalyticsService(kit);
  });
  afterEach(async () => {
    await service.close();
    await kit.close();
  });

  test('the same ids in two sites, written at once, are stored once per site', async () => {
    const other = (await createTestProject(kit.t.services, { name: 'Other docs' })).id;
    const today = Math.floor(kit.t.clock.now() / DAY);
    const events = (offset: number) =>
      Array.from({ length: 30 }, (_, index) => ({
        id: `shared-${(index + offset) % 45}`,
        path: `/p${index % 3}`,
        visitorId: `v${index % 7}`,
        userAgent: USER_AGENTS.human,
        timestamp: new Date((today - 1) * DAY + index * 1000).toISOString(),
      }));
    // Alternating sites, all in flight together: the batches after the first queue behind
    // its insert and go into later groups together, both sites mixed.
    const projects = [kit.projectId, other, kit.projectId, other, kit.projectId, other];
    const answers = await Promise.all(projects.map((project, index) => service.ingest(project, events(index < 2 ? 0 : 15))));
    for (const answer of answers) expect(answer.accepted).toBe(30);
    // Per site: ids 0–29, then 15–44 (15 of them already stored), then 15–44 again.
    const duplicates = (project: string) => answers.filter((_, index) => projects[index] === project).reduce((sum, answer) => sum + answer.duplicates, 0);
    expect(duplicates(kit.projectId)).toBe(15 + 30);
    expect(duplicates(other)).toBe(15 + 30);
    expect(await clickhouseCount(kit.t.config, 'select count() from analytics_hits')).toBe(2 * 45);
    for (const project of [kit.projectId, other]) {
      const traffic = await service.traffic(project);
      expect(traffic.classes.reduce((sum, entry) => sum + entry.hits, 0)).toBe(45);
      expect((await service.visitors(project)).totals).toEqual({ human: 7, ai: 0, total: 7 });
    }
  });
});
