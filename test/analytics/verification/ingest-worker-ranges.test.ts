import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../../src/analytics/analytics-service.js';
import { FIXTURE_RANGES } from '../../fixtures/agent-ranges.js';
import { USER_AGENTS } from '../../helpers/analytics-kit.js';
import { createTestApp, createTestProject, type TestApp } from '../../helpers/test-app.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';

/**
 * The serving process builds its ingest pool's verifier before the verification service has
 * loaded agent-ranges.json, and the pool starts its worker threads with the first batches,
 * after the snapshot of the loaded (or changed) ranges went out to no worker yet. Hits
 * prepared in a worker must still be verified against the ranges the server has and stored
 * with their fingerprint: otherwise every hit is `claimed` whatever its address, and the
 * reclassification job, which re-verifies with the loaded ranges, rewrites (and on SQL
 * refolds) every hit the server ever stored at each start.
 */
describe.each(ANALYTICS_BACKENDS)('hits prepared in an ingest worker thread [%s]', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(backend);
  });
  afterAll(async () => t.close());

  test('are verified against the ranges the server has, and need no reclassification', async () => {
    const project = await createTestProject(t.services);
    const key = (await t.services.keys.create({ projectId: project.id })).key;
    const send = (events: unknown[]) =>
      t.app.inject({ method: 'POST', url: `/v1/analytics/${project.id}/events`, headers: { authorization: `Bearer ${key}` }, payload: { events } });
    const service: AnalyticsService = t.services.agentAnalytics.reports!;
    const verification = service.verification!;
    // The ranges the server loaded at start (agent-ranges.json of the data directory, else the shipped file)...
    for (let waited = 0; verification.catalog.fingerprint === undefined && waited < 5_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // ...and new ones, as the file poll or a refresh brings them, before any batch has started a worker thread.
    verification.setRanges(FIXTURE_RANGES);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const at = new Date(t.clock.now() - 60_000).toISOString();
    const response = await send([
      { path: '/guide', ip: '20.171.206.9', userAgent: USER_AGENTS.aiTraining, timestamp: at },
      { path: '/guide', ip: '198.51.100.7', userAgent: USER_AGENTS.aiTraining, timestamp: at },
      { path: '/', ip: '198.51.100.8', userAgent: USER_AGENTS.human, timestamp: at },
    ]);
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ accepted: 3 });

    const day = at.slice(0, 10);
    const agents = await t.app.inject({
      method: 'GET',
      url: `/v1/analytics/${project.id}/agents?dateFrom=${day}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(agents.statusCode).toBe(200);
    // GPTBot inside its complete list is verified; outside it, spoofed: a worker without the ranges would call both claimed.
    const rows = agents.json<{ agents: Array<{ agent: string; hits: number; verifiedHits: number; spoofedHits: number }> }>().agents;
    expect(rows.map((row) => [row.agent, row.hits, row.verifiedHits, row.spoofedHits]).sort()).toEqual([
      ['GPTBot (spoofed)', 1, 0, 1],
      ['GPTBot', 1, 1, 0],
    ]);

    // Stored under the loaded ranges' fingerprint: the job finds nothing to re-verify.
    const progress = await service.reclassify();
    expect(progress).toMatchObject({ hitsRewritten: 0 });
  });
});
