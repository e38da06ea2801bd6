import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, test } from 'vitest';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createAnalyticsKit, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { openSecondInstance } from '../helpers/second-instance.js';
import { clickhouseRows } from '../helpers/clickhouse-rows.js';

const SITE = 'https://docs.example.com';

describe.each(ANALYTICS_BACKENDS)('page beacon and collect endpoint [%s]', (dialect) => {
  let kit: AnalyticsKit;
  afterEach(async () => kit.close());

  async function setUp(
    settings: { allowedOrigins?: string[]; rotateVisitorIdsDaily?: boolean } = { allowedOrigins: [SITE] },
    environment: Record<string, string> = {},
  ) {
    kit = await createAnalyticsKit(dialect, environment);
    await kit.t.services.projects.update(kit.projectId, { settings });
  }

  const collect = (
    options: { origin?: string; body?: string; contentType?: string; ip?: string; forwardedFor?: string; userAgent?: string; projectId?: string } = {},
  ) => {
    const headers: Record<string, string> = {
      'content-type': options.contentType ?? 'text/plain;charset=UTF-8',
      'user-agent': options.userAgent ?? USER_AGENTS.human,
    };
    if (options.origin !== undefined) headers.origin = options.origin;
    if (options.forwardedFor !== undefined) headers['x-forwarded-for'] = options.forwardedFor;
    return kit.t.app.inject({
      method: 'POST',
      url: `/v1/analytics/${options.projectId ?? kit.projectId}/collect`,
      headers,
      payload: options.body ?? JSON.stringify({ path: '/docs/start', referrer: 'https://www.google.com/' }),
      remoteAddress: options.ip ?? '203.0.113.7',
    });
  };
  const totals = async () => (await kit.get('visitors')).json().totals;

  /** Runs /script.js as a page would, on `location` with `referrer`; returns what it sent and the page's history. */
  async function runBeacon(location: { pathname: string; search?: string }, referrer: string) {
    const script = (await kit.t.app.inject({ method: 'GET', url: '/script.js' })).body;
    const beacons: Array<{ url: string; body: unknown }> = [];
    const listeners: Record<string, () => void> = {};
    const history = {
      pushState(_state: unknown, _title: string, url: string) {
        location.pathname = url;
      },
    };
    runInNewContext(script, {
      document: {
        currentScript: { src: 'https://analytics.example.com/script.js', getAttribute: (name: string) => (name === 'data-project' ? kit.projectId : null) },
        referrer,
      },
      location,
      history,
      navigator: { sendBeacon: (url: string, body: unknown) => beacons.push({ url, body }) > 0 },
      addEventListener: (type: string, listener: () => void) => (listeners[type] = listener),
      URL,
      JSON,
      encodeURIComponent,
    });
    return { beacons, history, listeners };
  }

  test('script.js is small JavaScript, cacheable, and sets no cookie', async () => {
    await setUp();
    const response = await kit.t.app.inject({ method: 'GET', url: '/script.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['cache-control']).toMatch(/public, max-age=\d+/);
    expect(response.body.length).toBeLessThan(2048);
    expect(response.body).not.toMatch(/cookie|localStorage|sessionStorage/);
    const etag = response.headers.etag!;
    const again = await kit.t.app.inject({ method: 'GET', url: '/script.js', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  test('the script posts its page to its own server as text/plain, once per path, also after pushState', async () => {
    await setUp();
    const { beacons, history, listeners } = await runBeacon({ pathname: '/docs/start' }, 'https://www.google.com/');
    history.pushState(null, '', '/docs/next');
    history.pushState(null, '', '/docs/next');
    listeners.popstate?.();
    expect(beacons.map((beacon) => beacon.url)).toEqual([
      `https://analytics.example.com/v1/analytics/${kit.projectId}/collect`,
      `https://analytics.example.com/v1/analytics/${kit.projectId}/collect`,
    ]);
    // A string body is sent as text/plain;charset=UTF-8: a CORS-safelisted request, no preflight.
    expect(beacons.every((beacon) => typeof beacon.body === 'string')).toBe(true);
    expect(JSON.parse(beacons[0]!.body as string)).toEqual({ path: '/docs/start', referrer: 'https://www.google.com/' });
    expect(JSON.parse(beacons[1]!.body as string)).toEqual({ path: '/docs/next' });

    for (const beacon of beacons) {
      const response = await collect({ origin: SITE, body: beacon.body as string });
      expect(response.statusCode).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(SITE);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    expect((await kit.get('visitors')).json().visitors).toEqual([
      { path: '/docs/next', human: 1, ai: 0, total: 1 },
      { path: '/docs/start', human: 1, ai: 0, total: 1 },
    ]);
  });

  test('the script sends the utm_source of the page a visit arrived on, and a person from an AI product is an AI referral', async () => {
    await setUp();
    const { beacons: sent, history } = await runBeacon({ pathname: '/docs/start', search: '?x=1&utm_source=chatgpt.com&token=secret' }, '');
    history.pushState(null, '', '/docs/next');
    const beacons = sent.map((beacon) => beacon.body as string);
    // Only utm_source leaves the page, and only with the page the visit arrived on.
    expect(beacons.map((body) => JSON.parse(body) as unknown)).toEqual([{ path: '/docs/start?utm_source=chatgpt.com' }, { path: '/docs/next' }]);
    for (const body of beacons) expect((await collect({ origin: SITE, body })).statusCode).toBe(204);
    const { db } = kit.t.services.database;
    const names = new Map((await db.selectFrom('analytics_dimensions').select(['id', 'name']).execute()).map((row) => [Number(row.id), row.name]));
    const stored =
      dialect === 'clickhouse'
        ? await clickhouseRows<{ page: number; referral: number | null }>(kit.t, 'SELECT page, referral FROM analytics_hits')
        : await db.selectFrom('analytics_hits').select(['page', 'referral']).execute();
    const rows = stored
      .map((row) => ({ path: names.get(Number(row.page)), referral: row.referral === null ? null : names.get(Number(row.referral)) }))
      .sort((a, b) => String(a.path).localeCompare(String(b.path)));
    expect(rows).toEqual([
      { path: '/docs/next', referral: null },
      { path: '/docs/start', referral: 'chatgpt.com' },
    ]);
  });

  test('only allowed origins may send beacons; none configured means beacons are off', async () => {
    await setUp({});
    const off = await collect({ origin: SITE });
    expect(off.statusCode).toBe(403);
    expect(off.json()).toMatchObject({ code: 'origin_not_allowed' });
    await kit.t.services.projects.update(kit.projectId, { settings: { allowedOrigins: [`${SITE}/`] } });
    expect((await collect({ origin: SITE })).statusCode).toBe(204);
    expect((await collect({ origin: 'HTTPS://DOCS.EXAMPLE.COM' })).statusCode).toBe(204);
    for (const origin of ['https://evil.example.com', 'http://docs.example.com', undefined, 'null']) {
      const refused = await collect({ origin });
      expect(refused.statusCode, String(origin)).toBe(403);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    }
    await kit.t.services.projects.update(kit.projectId, { settings: { allowedOrigins: ['*'] } });
    expect((await collect({ origin: 'https://anywhere.example.org' })).statusCode).toBe(204);
    expect((await totals()).human).toBe(1);
  });

  test('an unknown project is a 404; the endpoint needs no key', async () => {
    await setUp();
    const response = await collect({ origin: SITE, projectId: 'doesNotExist' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });

  test('CORS preflight: allowed origins get the grant, others a 403', async () => {
    await setUp();
    const preflight = (origin: string) =>
      kit.t.app.inject({
        method: 'OPTIONS',
        url: `/v1/analytics/${kit.projectId}/collect`,
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const allowed = await preflight(SITE);
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(SITE);
    expect(allowed.headers['access-control-allow-methods']).toBe('POST');
    expect(String(allowed.headers['access-control-allow-headers']).toLowerCase()).toBe('content-type');
    expect(allowed.headers.vary).toMatch(/Origin/);
    const refused = await preflight('https://evil.example.com');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('JSON bodies work too; a bad body or path is a 400 and stores nothing', async () => {
    await setUp();
    expect((await collect({ origin: SITE, contentType: 'application/json' })).statusCode).toBe(204);
    const notJson = await collect({ origin: SITE, body: 'path=/x' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toMatchObject({ code: 'invalid_json' });
    const badPath = await collect({ origin: SITE, body: JSON.stringify({ path: 'https://elsewhere.example.com/' }) });
    expect(badPath.statusCode).toBe(400);
    expect(badPath.json()).toMatchObject({ code: 'invalid_path' });
    expect((await collect({ origin: SITE, body: JSON.stringify({ path: '/x'.repeat(9000) }) })).statusCode).toBe(413);
    expect((await kit.get('traffic')).json().classes[0]).toEqual({ class: 'human', hits: 1, visitors: 1 });
  });

  test('the user agent classifies the beacon', async () => {
    await setUp();
    await collect({ origin: SITE, userAgent: USER_AGENTS.ai });
    await collect({ origin: SITE, userAgent: USER_AGENTS.human, ip: '198.51.100.1' });
    expect(await totals()).toEqual({ human: 1, ai: 1, total: 2 });
  });

  test('X-Forwarded-For is ignored unless DOCWRIGHT_TRUST_PROXY names the proxies', async () => {
    await setUp();
    await collect({ origin: SITE, forwardedFor: '198.51.100.1' });
    await collect({ origin: SITE, forwardedFor: '198.51.100.2' });
    expect((await totals()).human).toBe(1);
    await kit.close();
    await setUp({ allowedOrigins: [SITE] }, { DOCWRIGHT_TRUST_PROXY: '1' });
    await collect({ origin: SITE, forwardedFor: '198.51.100.1' });
    await collect({ origin: SITE, forwardedFor: '198.51.100.2' });
    await collect({ origin: SITE, forwardedFor: '198.51.100.2' });
    // A client's own entries are left of what the proxy appended: they change nothing.
    await collect({ origin: SITE, forwardedFor: '192.0.2.66, 198.51.100.2' });
    expect((await totals()).human).toBe(2);
  });

  test('each address may send 120 beacons a minute per project', async () => {
    await setUp();
    for (let index = 0; index < 120; index++) expect((await collect({ origin: SITE })).statusCode).toBe(204);
    const limited = await collect({ origin: SITE });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await collect({ origin: SITE, ip: '198.51.100.9' })).statusCode).toBe(204);
    kit.t.clock.advance(60_000);
    expect((await collect({ origin: SITE })).statusCode).toBe(204);
  });

  test('the limit is shared by every server process; DOCWRIGHT_BEACON_RATE_LIMIT sets it, 0 turns it off; an IPv6 /64 is one address', async () => {
    await setUp({ allowedOrigins: [SITE] }, { DOCWRIGHT_BEACON_RATE_LIMIT: '6' });
    const second = await openSecondInstance(kit.t);
    try {
      const beacon = (app: typeof kit.t.app, ip: string) =>
        app.inject({
          method: 'POST',
          url: `/v1/analytics/${kit.projectId}/collect`,
          headers: { origin: SITE, 'content-type': 'text/plain', 'user-agent': USER_AGENTS.human },
          payload: '{"path":"/docs/start"}',
          remoteAddress: ip,
        });
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, index) => beacon(index % 2 === 0 ? kit.t.app : second.app, '203.0.113.7')));
      expect(statuses.filter((response) => response.statusCode === 204)).toHaveLength(6);
      expect(statuses.filter((response) => response.statusCode === 429)).toHaveLength(4);
      const v6 = await Promise.all(Array.from({ length: 8 }, (_, index) => beacon(index % 2 === 0 ? kit.t.app : second.app, `2001:db8:1:2::${index + 1}`)));
      expect(v6.filter((response) => response.statusCode === 204)).toHaveLength(6);
    } finally {
      await second.close();
    }
    await kit.close();
    await setUp({ allowedOrigins: [SITE] }, { DOCWRIGHT_BEACON_RATE_LIMIT: '0' });
    for (let index = 0; index < 130; index++) expect((await collect({ origin: SITE })).statusCode).toBe(204);
    expect(await kit.t.services.database.db.selectFrom('rate_limit_windows').selectAll().execute()).toEqual([]);
  });
});
