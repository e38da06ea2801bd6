import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createAnalyticsKit, dayTime, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { createTestProject } from '../helpers/test-app.js';

describe.each(ANALYTICS_BACKENDS)('report endpoints: parameters and access [%s]', (dialect) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit.close());

  const fieldErrors = (body: { errors?: Array<{ path: string }> }) => (body.errors ?? []).map((error) => error.path).sort();

  test.each([
    [{ limit: 0 }, ['limit']],
    [{ limit: 251 }, ['limit']],
    [{ limit: 1.5 }, ['limit']],
    [{ limit: 'ten' }, ['limit']],
    [{ limit: '' }, ['limit']],
    [{ offset: -1 }, ['offset']],
    [{ offset: 0.5 }, ['offset']],
    [{ offset: 'x' }, ['offset']],
    [{ dateFrom: 'yesterday' }, ['dateFrom']],
    [{ dateFrom: '2026-02-30' }, ['dateFrom']],
    [{ dateTo: '2026-13-01' }, ['dateTo']],
    [{ dateTo: '2026-01-01T25:00:00Z' }, ['dateTo']],
    [{ dateFrom: '20260101' }, ['dateFrom']],
    [{ limit: 0, offset: -1, dateFrom: 'x' }, ['dateFrom', 'limit', 'offset']],
    [{ sort: 'visitors' }, ['sort']],
    [{ sort: 'TOTAL' }, ['sort']],
    [{ sort: '' }, ['sort']],
    [{ order: 'up' }, ['order']],
    [{ order: 'DESC' }, ['order']],
    [{ sort: 'hits', order: 'down', limit: 0 }, ['limit', 'order', 'sort']],
  ] as const)('visitors and views with %j answer 400 naming %j', async (query, fields) => {
    for (const report of ['visitors', 'views'] as const) {
      const response = await kit.get(report, query);
      expect(response.statusCode, report).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = response.json();
      expect(body).toMatchObject({ status: 400, code: 'validation_failed', error: expect.any(String) });
      expect(fieldErrors(body), report).toEqual(fields);
    }
  });

  test('limit 1 and 250 and offset 0 are accepted; limit defaults to 50', async () => {
    for (const query of [{ limit: 1 }, { limit: 250 }, { offset: 0 }, { offset: 100000 }] as Array<Record<string, number>>)
      expect((await kit.get('visitors', query)).statusCode).toBe(200);
    const events = Array.from({ length: 60 }, (_, index) => ({ path: `/p${index}`, visitorId: `v${index}`, userAgent: USER_AGENTS.human }));
    expect((await kit.send(events)).statusCode).toBe(202);
    const first = (await kit.get('visitors')).json();
    expect(first.visitors).toHaveLength(50);
    expect(first.hasMore).toBe(true);
    const second = (await kit.get('visitors', { offset: 50 })).json();
    expect(second.visitors).toHaveLength(10);
    expect(second.hasMore).toBe(false);
    const exact = (await kit.get('visitors', { offset: 10 })).json();
    expect(exact.visitors).toHaveLength(50);
    expect(exact.hasMore).toBe(false);
  });

  test('dateFrom after dateTo is a 400 on every report; equal bounds are an empty range', async () => {
    for (const report of ['visitors', 'views', 'visitors/daily', 'traffic'] as const) {
      const response = await kit.get(report, { dateFrom: '2026-05-10', dateTo: '2026-05-09T23:59:59Z' });
      expect(response.statusCode, report).toBe(400);
      expect(fieldErrors(response.json()), report).toEqual(['dateFrom']);
    }
    await kit.send([{ path: '/a', visitorId: 'v', userAgent: USER_AGENTS.human }]);
    const now = new Date(kit.t.clock.now()).toISOString();
    const empty = (await kit.get('visitors', { dateFrom: now, dateTo: now })).json();
    expect(empty).toEqual({ totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
  });

  test('date-time bounds with offsets and fractions are read in UTC', async () => {
    await kit.send([{ path: '/a', visitorId: 'v', userAgent: USER_AGENTS.human, timestamp: dayTime(kit.t, -1, 10 * 3_600_000) }]);
    const at = Date.parse(dayTime(kit.t, -1, 10 * 3_600_000));
    const local = (offsetHours: number, ms: number) => {
      const shifted = new Date(ms + offsetHours * 3_600_000).toISOString().slice(0, 23);
      return `${shifted}${offsetHours >= 0 ? '+' : '-'}${String(Math.abs(offsetHours)).padStart(2, '0')}:00`;
    };
    const count = async (dateFrom: string, dateTo: string) => (await kit.get('visitors', { dateFrom, dateTo })).json().totals.total;
    expect(await count(local(2, at), local(2, at + 1))).toBe(1);
    expect(await count(local(-5, at + 1), local(-5, at + 2))).toBe(0);
    expect(await count(new Date(at - 1).toISOString(), new Date(at).toISOString())).toBe(0);
    expect(await count(new Date(at).toISOString().replace('Z', ''), new Date(at + 1).toISOString())).toBe(1);
    expect(await count(new Date(at).toISOString().replace('.000Z', '.0001Z'), new Date(at + 1).toISOString())).toBe(1);
  });

  test('the daily report spans at most 366 days and lists every day, zeros included', async () => {
    expect((await kit.get('visitors/daily', { dateFrom: '2025-01-01', dateTo: '2026-01-02' })).statusCode).toBe(200);
    const tooLong = await kit.get('visitors/daily', { dateFrom: '2025-01-01', dateTo: '2026-01-03' });
    expect(tooLong.statusCode).toBe(400);
    expect(fieldErrors(tooLong.json())).toEqual(['dateFrom']);
    const open = (await kit.get('visitors/daily')).json();
    expect(open.days).toHaveLength(30);
    expect(open.days.at(-1).date).toBe(dayTime(kit.t, 0).slice(0, 10));
    expect(open.days.every((day: { total: number }) => day.total === 0)).toBe(true);
    expect((await kit.get('visitors/daily', { dateFrom: 'soon' })).statusCode).toBe(400);
  });

  test('traffic names agents with their class, busiest first', async () => {
    await kit.send([
      ...Array.from({ length: 3 }, (_, index) => ({ path: '/a', ip: `10.0.0.${index}`, userAgent: USER_AGENTS.bot })),
      { path: '/a', ip: '10.0.1.1', userAgent: USER_AGENTS.ai },
      { path: '/b', ip: '10.0.1.1', userAgent: USER_AGENTS.ai },
      { path: '/a.md', ip: '10.0.2.1', userAgent: USER_AGENTS.bot },
      { path: '/a', ip: '10.0.3.1', userAgent: USER_AGENTS.aiTraining },
    ]);
    const traffic = (await kit.get('traffic')).json();
    expect(traffic.agents).toEqual([
      { agent: 'Googlebot', class: 'bot', hits: 3, visitors: 3 },
      { agent: 'ChatGPT', class: 'ai', hits: 2, visitors: 1 },
      { agent: 'GPTBot', class: 'ai-training', hits: 1, visitors: 1 },
      { agent: 'Googlebot', class: 'ai', hits: 1, visitors: 1 },
    ]);
    expect(traffic.hasMoreAgents).toBe(false);
  });

  test('an ingest key may send events but not read reports (403); admin keys may do both', async () => {
    const event = { path: '/a', visitorId: 'v', userAgent: USER_AGENTS.human };
    expect((await kit.send([event], kit.ingestKey)).statusCode).toBe(202);
    expect((await kit.send([event], kit.adminKey)).statusCode).toBe(202);
    for (const report of ['visitors', 'views', 'visitors/daily', 'traffic'] as const) {
      const refused = await kit.get(report, {}, kit.ingestKey);
      expect(refused.statusCode, report).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'forbidden' });
      expect((await kit.get(report, {}, kit.adminKey)).statusCode, report).toBe(200);
    }
  });

  test("no key is a 401, another project's key a 404, on reports and events alike", async () => {
    const other = await createTestProject(kit.t.services, { name: 'Other' });
    const otherKey = (await kit.t.services.keys.create({ projectId: other.id, scope: 'admin' })).key;
    const noKey = await kit.t.app.inject({ method: 'GET', url: `/v1/analytics/${kit.projectId}/visitors` });
    expect(noKey.statusCode).toBe(401);
    expect((await kit.get('visitors', {}, otherKey)).statusCode).toBe(404);
    expect((await kit.send([{ path: '/a', visitorId: 'v' }], otherKey)).statusCode).toBe(404);
    const unknown = await kit.t.app.inject({ method: 'GET', url: '/v1/analytics/nope/visitors', headers: { authorization: `Bearer ${kit.adminKey}` } });
    expect(unknown.statusCode).toBe(404);
  });

  test('the OpenAPI document describes the analytics operations and the event item', async () => {
    const document = (await kit.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['visitors', 'views', 'visitors/daily', 'traffic'].map((report) => `/v1/analytics/{projectId}/${report}`)) {
      expect(document.paths[path]?.get, path).toBeDefined();
    }
    const events = document.paths['/v1/analytics/{projectId}/events'].post;
    expect(events.responses['202']).toBeDefined();
    const item = events.requestBody.content['application/json'].schema.properties.events.items;
    expect(Object.keys(item.properties)).toEqual(['id', 'timestamp', 'path', 'userAgent', 'ip', 'visitorId', 'accept', 'referrer', 'status', 'webBotAuth']);
    for (const report of ['visitors', 'views']) {
      const parameters = document.paths[`/v1/analytics/{projectId}/${report}`].get.parameters.map((parameter: { name: string }) => parameter.name);
      expect(parameters).toEqual(expect.arrayContaining(['projectId', 'dateFrom', 'dateTo', 'limit', 'offset', 'sort', 'order']));
    }
    const sort = document.paths['/v1/analytics/{projectId}/visitors'].get.parameters.find((parameter: { name: string }) => parameter.name === 'sort');
    expect(sort.schema.enum).toEqual(['total', 'human', 'ai', 'path']);
    expect(sort.description).toMatch(/path ascending/);
  });
});
