import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createAnalyticsKit, dayTime, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';

/**
 * Hits arriving after later days were already folded: each new visit day can change the
 * "previous visit day" of a stored one. These cases are the ones the rollup design must
 * get exactly right; the property test covers them at random, these pin them down.
 */
describe.each(ANALYTICS_BACKENDS)('late and out-of-order hits [%s]', (dialect) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit.close());

  const hit = (day: number, userAgent: string = USER_AGENTS.human, path = '/p') => ({
    timestamp: dayTime(kit.t, day, 3_600_000),
    path,
    visitorId: 'reader',
    userAgent,
  });
  const visitors = async (query: Record<string, string> = {}) => (await kit.get('visitors', query)).json();
  const date = (day: number) => dayTime(kit.t, day).slice(0, 10);

  test('two earlier days arriving in one batch after a later day was folded', async () => {
    await kit.send([hit(-5)]);
    expect((await visitors()).totals).toEqual({ human: 1, ai: 0, total: 1 });
    await kit.fold();
    await kit.send([hit(-9), hit(-7)]);
    // Unfolded, then folded: the same answers.
    expect((await visitors()).totals).toEqual({ human: 1, ai: 0, total: 1 });
    for (const from of [-10, -9, -8, -7, -6, -5, -4]) {
      const expected = from <= -5 ? 1 : 0;
      expect((await visitors({ dateFrom: date(from) })).totals, `from day ${from}, unfolded`).toEqual({ human: expected, ai: 0, total: expected });
    }
    await kit.fold();
    for (const from of [-10, -9, -8, -7, -6, -5, -4]) {
      const expected = from <= -5 ? 1 : 0;
      expect((await visitors({ dateFrom: date(from) })).totals, `from day ${from}`).toEqual({ human: expected, ai: 0, total: expected });
    }
    expect((await visitors({ dateFrom: date(-8), dateTo: date(-7) })).totals.total).toBe(0);
    expect((await visitors({ dateFrom: date(-8), dateTo: date(-6) })).totals.total).toBe(1);
  });

  test('a day between two folded days, and a class change on a folded day', async () => {
    await kit.send([hit(-9), hit(-3)]);
    await kit.fold();
    await kit.send([hit(-6), hit(-3, USER_AGENTS.ai)]);
    expect((await visitors()).totals).toEqual({ human: 1, ai: 1, total: 1 });
    expect((await visitors({ dateFrom: date(-8), dateTo: date(-4) })).totals).toEqual({ human: 1, ai: 0, total: 1 });
    expect((await visitors({ dateFrom: date(-5) })).totals).toEqual({ human: 1, ai: 1, total: 1 });
    expect((await visitors({ dateFrom: date(-5), dateTo: date(-3) })).totals).toEqual({ human: 0, ai: 0, total: 0 });
  });

  test('the same hits in any order and any batching give the same counts', async () => {
    const days = [-2, -8, -5, -8, -1, -6, -3];
    for (const day of days) {
      await kit.send([hit(day, day % 2 === 0 ? USER_AGENTS.human : USER_AGENTS.ai)]);
      await kit.fold();
    }
    for (const from of [-9, -7, -5, -3, -1]) {
      const inRange = days.filter((day) => day >= from);
      const expected = {
        human: inRange.some((day) => day % 2 === 0) ? 1 : 0,
        ai: inRange.some((day) => day % 2 !== 0) ? 1 : 0,
        total: inRange.length > 0 ? 1 : 0,
      };
      expect((await visitors({ dateFrom: date(from) })).totals, `from day ${from}`).toEqual(expected);
    }
  });
});
