import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DocwrightError } from '../../src/core/errors.js';
import { AnalyticsService } from '../../src/analytics/analytics-service.js';
import type { VisitorsQuery } from '../../src/analytics/analytics-types.js';
import { TEST_SECRET } from '../helpers/test-app.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createAnalyticsKit, dayTime, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { bruteForceVisitors, oracleOrder, type OracleHit } from '../helpers/analytics-oracle.js';

/**
 * Pages with many equal counts in every column, so each sort has ties to break: page i
 * gets (i mod 3) human and (i mod 4) ai visitors, one of whom reads it both ways on
 * even pages (total < human + ai there).
 */
function dataset(kit: AnalyticsKit): OracleHit[] {
  const hits: OracleHit[] = [];
  const paths = ['/', '/a', '/B', '/b', '/api', '/api/auth', '/guide', '/guide/', '/z', '/Ä', '/é', '/日本', '/x/y/z', '/m'];
  for (const [index, path] of paths.entries()) {
    const at = Date.parse(dayTime(kit.t, -2, 1000 * index));
    for (let v = 0; v < index % 3; v++) hits.push({ at, path, visitor: `h${v}`, userAgent: USER_AGENTS.human });
    for (let v = 0; v < index % 4; v++) hits.push({ at: at + 1, path, visitor: `a${v}`, userAgent: USER_AGENTS.ai });
    if (index % 2 === 0)
      hits.push(
        { at: at + 2, path, visitor: `both${index}`, userAgent: USER_AGENTS.human },
        { at: at + 3, path, visitor: `both${index}`, userAgent: USER_AGENTS.ai },
      );
  }
  return hits;
}

const SORTS = [undefined, 'total', 'human', 'ai', 'path'] as const;
const ORDERS = [undefined, 'asc', 'desc'] as const;

describe.each(ANALYTICS_BACKENDS)('visitors sort and order [%s]', (dialect) => {
  let kit: AnalyticsKit;
  let hits: OracleHit[];
  beforeAll(async () => {
    kit = await createAnalyticsKit(dialect);
    hits = dataset(kit);
    const response = await kit.send(
      hits.map((hit) => ({ timestamp: new Date(hit.at).toISOString(), path: hit.path, visitorId: hit.visitor, userAgent: hit.userAgent })),
    );
    expect(response.json().accepted).toBe(hits.length);
  });
  afterAll(async () => kit.close());

  const ordering = (sort: string | undefined, order: string | undefined): Record<string, string> => ({
    ...(sort === undefined ? {} : { sort }),
    ...(order === undefined ? {} : { order }),
  });

  test.each(SORTS.flatMap((sort) => ORDERS.map((order) => [sort, order] as const)))(
    'sort %s, order %s: every page of every size matches the oracle',
    async (sort, order) => {
      const expected = oracleOrder(bruteForceVisitors(hits, null, null).visitors, sort, order);
      expect(expected.length).toBe(14);
      for (const limit of [1, 2, 5, 14, 250]) {
        const walked: unknown[] = [];
        for (let offset = 0; ; offset += limit) {
          const response = await kit.get('visitors', { ...ordering(sort, order), limit, offset });
          expect(response.statusCode).toBe(200);
          const page = response.json();
          expect(page.visitors).toEqual(expected.slice(offset, offset + limit));
          expect(page.hasMore).toBe(offset + limit < expected.length);
          walked.push(...page.visitors);
          if (!page.hasMore) break;
        }
        expect(walked).toEqual(expected);
      }
    },
  );

  test('the default is byte for byte the spec order (total descending, then path) and equals sort=total&order=desc', async () => {
    const plain = await kit.get('visitors', { limit: 250 });
    expect(plain.payload).toBe((await kit.get('visitors', { sort: 'total', limit: 250 })).payload);
    expect(plain.payload).toBe((await kit.get('visitors', { sort: 'total', order: 'desc', limit: 250 })).payload);
    expect(plain.json().visitors).toEqual(bruteForceVisitors(hits, null, null).visitors);
    // By hand: /B and /日本 have 5 visitors, /guide/ and /é 4.
    expect(
      plain
        .json()
        .visitors.map((page: { path: string }) => page.path)
        .slice(0, 4),
    ).toEqual(['/B', '/日本', '/guide/', '/é']);
  });

  test('path ascending compares UTF-16 code units, descending is its exact reverse', async () => {
    const up = (await kit.get('visitors', { sort: 'path', limit: 250 })).json().visitors.map((page: { path: string }) => page.path);
    const down = (await kit.get('visitors', { sort: 'path', order: 'desc', limit: 250 })).json().visitors.map((page: { path: string }) => page.path);
    expect(up).toEqual(['/', '/B', '/a', '/api', '/api/auth', '/b', '/guide', '/guide/', '/m', '/x/y/z', '/z', '/Ä', '/é', '/日本']);
    expect(down).toEqual([...up].reverse());
  });

  test('the service refuses an unknown sort or order with validation_failed naming each field', async () => {
    const service = new AnalyticsService({
      database: kit.t.services.database,
      clock: kit.t.clock,
      secret: TEST_SECRET,
      retentionDays: 30,
      projectSettings: async () => ({}),
    });
    const bad = { sort: 'hits', order: 'sideways' } as unknown as VisitorsQuery;
    const error = await service.visitors(kit.projectId, bad).catch((caught: unknown) => caught);
    await service.close();
    expect(error).toBeInstanceOf(DocwrightError);
    expect(error).toMatchObject({ code: 'validation_failed', status: 400 });
    expect((error as DocwrightError).errors?.map((field) => field.path)).toEqual(['sort', 'order']);
  });
});
