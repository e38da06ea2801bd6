import type { OpenAPIV3_1 } from 'openapi-types';
import { afterEach, describe, expect, inject, test } from 'vitest';
import { randomBase62 } from '../../../src/core/ids.js';
import { createAnalyticsKit, USER_AGENTS, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { startFaultProxy, type FaultProxy, type ProxyDecision } from '../../helpers/fault-proxy.js';
import { OpenApiResponses } from '../../helpers/openapi-responses.js';

type Injected = Awaited<ReturnType<AnalyticsKit['send']>>;

/**
 * ClickHouse away (docs/analytics.md, "ClickHouse"): accepted hits wait in the spool; past
 * DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS waiting hits ingest answers the documented 503
 * `analytics_backlog` and stores nothing of the request; what needs ClickHouse itself
 * answers a documented 503 whether the connection is refused or a balancer in front of it
 * answers 502; once ClickHouse is back the waiting hits are written and counted, and
 * ingest accepts again.
 */
describe('ClickHouse away: the spool limit and 503 answers', () => {
  let kit: AnalyticsKit | undefined;
  let proxy: FaultProxy | undefined;
  let database: string | undefined;
  afterEach(async () => {
    await kit?.close();
    await proxy?.close();
    if (database !== undefined) await fetch(inject('clickhouseUrl'), { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` });
    kit = proxy = database = undefined;
  });

  /** An app whose ClickHouse is behind a proxy that `away` decides for; reached once (its migrations run at the first use). */
  async function behindProxy(away: () => ProxyDecision | null, environment: Record<string, string> = {}) {
    proxy = await startFaultProxy(inject('clickhouseUrl'), () => away() ?? { forward: true });
    database = `test_${randomBase62(12).toLowerCase()}`;
    const app = await createAnalyticsKit('clickhouse', { DOCWRIGHT_ANALYTICS_URL: `${proxy.url}/${database}`, ...environment });
    kit = app;
    const openapi = new OpenApiResponses((await app.t.app.inject({ url: '/openapi.json' })).json<OpenAPIV3_1.Document>());
    const at = new Date(app.t.clock.now() - 3_600_000).toISOString();
    expect((await app.get('visitors')).statusCode).toBe(200);
    return {
      kit: app,
      eventsUrl: `/v1/analytics/${app.projectId}/events`,
      visitorsUrl: `/v1/analytics/${app.projectId}/visitors`,
      /** The problems of an answer against the app's own OpenAPI document (none: documented). */
      documented: (method: string, url: string, answer: Injected) =>
        openapi.check(method, url, {
          status: answer.statusCode,
          headers: Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, value === undefined ? undefined : String(value)])),
          body: answer.body,
        }),
      events: (count: number, first: number, ids = false) =>
        Array.from({ length: count }, (_, index) => ({
          ...(ids ? { id: `e${first + index}` } : {}),
          path: '/a',
          visitorId: `v${first + index}`,
          userAgent: USER_AGENTS.human,
          timestamp: at,
        })),
    };
  }

  test('a full spool answers 503 analytics_backlog as documented, and hits are accepted again once ClickHouse has drained it', async () => {
    let down = false;
    const { kit, eventsUrl, visitorsUrl, documented, events } = await behindProxy(() => (down ? { drop: true } : null), {
      DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS: '1000',
    });
    down = true;
    const accepted = await kit.send(events(1_000, 0));
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json()).toMatchObject({ accepted: 1_000 });

    const refused = await kit.send(events(1, 1_000));
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.json()).toMatchObject({ code: 'analytics_backlog', status: 503 });
    expect(documented('POST', eventsUrl, refused)).toEqual([]);
    // A report cannot drain the spool while ClickHouse is away: a documented 503 too, not a stale answer.
    const report = await kit.get('visitors');
    expect(report.statusCode).toBe(503);
    expect(documented('GET', visitorsUrl, report)).toEqual([]);

    down = false;
    // The next report writes the waiting hits first; the refused event is not among them.
    expect((await kit.get('visitors')).json()).toMatchObject({ totals: { human: 1_000, ai: 0, total: 1_000 } });
    const again = await kit.send(events(1, 1_000));
    expect(again.statusCode).toBe(202);
    expect((await kit.get('views')).json()).toMatchObject({ totals: { human: 1_001, ai: 0, total: 1_001 } });
  });

  test('a balancer answering 502 for a ClickHouse that is down gives 503 database_unavailable, never a 500; hits without an id still wait in the spool', async () => {
    let down = false;
    const { kit, eventsUrl, visitorsUrl, documented, events } = await behindProxy(() => (down ? { status: 502, body: '<html>502 Bad Gateway</html>' } : null));
    down = true;

    // Events with ids are checked against ClickHouse's event ids, which it cannot answer now.
    const withIds = await kit.send(events(3, 0, true));
    expect(withIds.statusCode).toBe(503);
    expect(withIds.json()).toMatchObject({ code: 'database_unavailable' });
    expect(withIds.headers['retry-after']).toBe('2');
    expect(documented('POST', eventsUrl, withIds)).toEqual([]);
    const report = await kit.get('visitors');
    expect(report.statusCode).toBe(503);
    expect(report.json()).toMatchObject({ code: 'database_unavailable' });
    expect(documented('GET', visitorsUrl, report)).toEqual([]);
    expect((await kit.send(events(2, 10))).json()).toMatchObject({ accepted: 2 });

    down = false;
    expect((await kit.send(events(3, 0, true))).json()).toMatchObject({ accepted: 3 });
    expect((await kit.get('visitors')).json()).toMatchObject({ totals: { human: 5, ai: 0, total: 5 } });
  });
});
