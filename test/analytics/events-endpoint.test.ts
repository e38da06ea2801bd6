import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { createTestProject } from '../helpers/test-app.js';

describe.each(ANALYTICS_BACKENDS)('POST /v1/analytics/{projectId}/events [%s]', (dialect) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect, { DOCWRIGHT_ANALYTICS_RETENTION_DAYS: '30' });
  });
  afterEach(async () => kit.close());

  const good = (extra: Record<string, unknown> = {}) => ({ path: '/ok', visitorId: 'v', userAgent: USER_AGENTS.human, ...extra });
  const at = (offsetMs: number) => new Date(kit.t.clock.now() + offsetMs).toISOString();
  const hits = async () => (await kit.get('traffic')).json().classes.reduce((sum: number, entry: { hits: number }) => sum + entry.hits, 0);

  test('each bad item is rejected with its index and a code; the others are stored', async () => {
    const batch = [
      good(),
      'not an object',
      null,
      [good()],
      { visitorId: 'v' },
      good({ path: 'relative' }),
      good({ path: 'https://docs.example.com/a' }),
      good({ path: '//evil.example.com/a' }),
      good({ path: '/has space' }),
      good({ path: `/${'a'.repeat(1024)}` }),
      good({ timestamp: 'last tuesday' }),
      good({ timestamp: -5 }),
      good({ timestamp: 1.5 }),
      good({ timestamp: at(5 * 60_000 + 1) }),
      good({ timestamp: at(-30 * DAY - 1) }),
      { path: '/anonymous', userAgent: USER_AGENTS.human },
      good({ visitorId: undefined, ip: '999.1.1.1' }),
      good({ id: 42 }),
      good({ id: '' }),
      good({ visitorId: 'x'.repeat(201) }),
      good({ userAgent: 7 }),
      good({ referrer: {} }),
      good({ accept: ['text/html'] }),
      good({ timestamp: at(5 * 60_000), path: '/edge-of-future' }),
      good({ timestamp: at(-30 * DAY), path: '/edge-of-retention' }),
      good({ visitorId: undefined, ip: '2001:db8::1', path: '/v6' }),
    ];
    const response = await kit.send(batch);
    expect(response.statusCode).toBe(202);
    const body = response.json<{ accepted: number; rejected: Array<{ index: number; code: string; message: string }> }>();
    expect(body.rejected.map((rejection: { index: number; code: string }) => [rejection.index, rejection.code])).toEqual([
      [1, 'invalid_event'],
      [2, 'invalid_event'],
      [3, 'invalid_event'],
      [4, 'invalid_path'],
      [5, 'invalid_path'],
      [6, 'invalid_path'],
      [7, 'invalid_path'],
      [8, 'invalid_path'],
      [9, 'invalid_path'],
      [10, 'invalid_timestamp'],
      [11, 'invalid_timestamp'],
      [12, 'invalid_timestamp'],
      [13, 'timestamp_in_future'],
      [14, 'timestamp_too_old'],
      [15, 'missing_visitor'],
      [16, 'invalid_field'],
      [17, 'invalid_field'],
      [18, 'invalid_field'],
      [19, 'invalid_field'],
      [20, 'invalid_field'],
      [21, 'invalid_field'],
      [22, 'invalid_field'],
    ]);
    for (const rejection of body.rejected) expect(rejection.message.length).toBeGreaterThan(5);
    expect(body.accepted).toBe(4);
    expect(body.accepted + body.rejected.length).toBe(batch.length);
    const pages = (await kit.get('visitors'))
      .json()
      .visitors.map((entry: { path: string }) => entry.path)
      .sort();
    expect(pages).toEqual(['/edge-of-future', '/edge-of-retention', '/ok', '/v6']);
  });

  test('a query string and fragment are dropped from the path', async () => {
    await kit.send([good({ path: '/guide?utm_source=x#install' }), good({ path: '/guide#top', visitorId: 'w' })]);
    expect((await kit.get('visitors')).json().visitors).toEqual([{ path: '/guide', human: 2, ai: 0, total: 2 }]);
  });

  test("an event without timestamp happens at the clock's now", async () => {
    await kit.send([good()]);
    const now = kit.t.clock.now();
    const count = async (dateFrom: number, dateTo: number) =>
      (await kit.get('visitors', { dateFrom: new Date(dateFrom).toISOString(), dateTo: new Date(dateTo).toISOString() })).json().totals.total;
    expect(await count(now, now + 1)).toBe(1);
    expect(await count(now - 1, now)).toBe(0);
  });

  test('at most 1,000 events per batch; bodies over 1 MiB are refused with 413', async () => {
    const thousand = Array.from({ length: 1000 }, (_, index) => good({ visitorId: `v${index}` }));
    const accepted = await kit.send(thousand);
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json().accepted).toBe(1000);
    const tooMany = await kit.send([...thousand, good()]);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors.map((error: { path: string }) => error.path)).toEqual(['events']);
    const padding = 'x'.repeat(1100);
    const huge = await kit.send(Array.from({ length: 1000 }, () => good({ referrer: `https://example.com/${padding}` })));
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(await hits()).toBe(1000);
  });

  test.each([
    [{}, 'events'],
    [{ events: 'nope' }, 'events'],
    [[], ''],
  ])('a body of %j is a 400', async (payload, field) => {
    const response = await kit.t.app.inject({
      method: 'POST',
      url: `/v1/analytics/${kit.projectId}/events`,
      headers: { authorization: `Bearer ${kit.ingestKey}` },
      payload: payload as object,
    });
    expect(response.statusCode).toBe(400);
    if (field) expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(field);
  });

  test('an event id makes a retried event count once, within a batch and across batches', async () => {
    const batch = [good({ id: 'e1', visitorId: 'a' }), good({ id: 'e2', visitorId: 'b' }), good({ id: 'e1', visitorId: 'c' }), good({ visitorId: 'd' })];
    expect((await kit.send(batch)).json()).toMatchObject({ accepted: 4, duplicates: 1, rejected: [] });
    expect((await kit.send(batch)).json()).toMatchObject({ accepted: 4, duplicates: 3, rejected: [] });
    // Without an id nothing can tell a retry from a second view: 'd' counts twice as hits, once as a visitor.
    expect(await hits()).toBe(4);
    expect((await kit.get('visitors')).json().totals).toEqual({ human: 3, ai: 0, total: 3 });
    const other = await createTestProject(kit.t.services, { name: 'Other' });
    const otherKey = (await kit.t.services.keys.create({ projectId: other.id, scope: 'ingest' })).key;
    const response = await kit.t.app.inject({
      method: 'POST',
      url: `/v1/analytics/${other.id}/events`,
      headers: { authorization: `Bearer ${otherKey}` },
      payload: { events: [good({ id: 'e1' })] },
    });
    expect(response.json()).toMatchObject({ accepted: 1, duplicates: 0 });
  });

  test("concurrent batches for two projects, retrying each other's ids, store every hit once and in the right project", async () => {
    const other = await createTestProject(kit.t.services, { name: 'Concurrent' });
    const otherKey = (await kit.t.services.keys.create({ projectId: other.id, scope: 'ingest' })).key;
    const sendOther = (events: unknown[]) =>
      kit.t.app.inject({ method: 'POST', url: `/v1/analytics/${other.id}/events`, headers: { authorization: `Bearer ${otherKey}` }, payload: { events } });
    // Twelve batches at once (they queue for the same ingest lock and may be written together):
    // each id appears in two batches of this project, and the other project reuses the same ids.
    const batchOf = (round: number) => Array.from({ length: 5 }, (_, index) => good({ id: `c${(round % 6) * 5 + index}`, visitorId: `v${round}-${index}` }));
    const responses = await Promise.all([
      ...Array.from({ length: 12 }, (_, round) => kit.send(batchOf(round))),
      ...Array.from({ length: 3 }, (_, round) => sendOther(batchOf(round))),
    ]);
    const bodies = responses.map((response) => response.json<{ accepted: number; duplicates: number }>());
    const mine = bodies.slice(0, 12);
    expect(mine.reduce((sum, body) => sum + body.accepted, 0)).toBe(60);
    expect(mine.reduce((sum, body) => sum + body.duplicates, 0)).toBe(30);
    expect(bodies.slice(12).reduce((sum, body) => sum + body.duplicates, 0)).toBe(0);
    expect(await hits()).toBe(30);
    expect((await kit.get('visitors')).json().totals.total).toBe(30);
  });

  test('the retention period and clock skew bound timestamps; both move with the clock', async () => {
    expect((await kit.send([good({ timestamp: at(-29 * DAY) })])).json().rejected).toEqual([]);
    kit.t.clock.advance(2 * DAY);
    const late = (await kit.send([good({ timestamp: at(-31 * DAY) })])).json();
    expect(late.rejected).toMatchObject([{ index: 0, code: 'timestamp_too_old' }]);
    expect((await kit.send([good({ timestamp: at(4 * 60_000) })])).json().rejected).toEqual([]);
  });
});
