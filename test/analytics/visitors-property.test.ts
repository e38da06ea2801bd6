import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { DAY, USER_AGENTS, foldPending } from '../helpers/analytics-kit.js';
import { bruteForceClasses, bruteForceViews, bruteForceVisitors, oracleOrder, type OracleHit } from '../helpers/analytics-oracle.js';

const PATHS = ['/', '/guide', '/guide.md', '/api', '/api/auth', '/z'];
const AGENTS = [
  USER_AGENTS.human,
  USER_AGENTS.humanFirefox,
  USER_AGENTS.ai,
  USER_AGENTS.aiClaude,
  USER_AGENTS.aiSearch,
  USER_AGENTS.aiTraining,
  USER_AGENTS.bot,
];
const DAYS = 8;

const hitArbitrary = fc.record({
  // Reduced modulo the scenario's path and visitor counts, so some scenarios are dense
  // (the same visitor on the same page on many days, late days landing between folded ones).
  path: fc.integer({ min: 0, max: PATHS.length - 1 }),
  visitor: fc.integer({ min: 0, max: 7 }),
  agent: fc.constantFrom(...AGENTS),
  day: fc.integer({ min: 0, max: DAYS - 1 }),
  // A few instants on purpose: bounds then often fall exactly on a hit.
  ms: fc.oneof(fc.constantFrom(0, 1, DAY / 2, DAY - 1), fc.integer({ min: 0, max: DAY - 1 })),
});

/** A bound: open, a date, or a date-time (sometimes exactly on a day boundary). */
const boundArbitrary = fc.option(
  fc.record({
    day: fc.integer({ min: -1, max: DAYS + 1 }),
    ms: fc.oneof(fc.constant(0), fc.constantFrom(1, DAY / 2, DAY - 1), fc.integer({ min: 0, max: DAY - 1 })),
    asDate: fc.boolean(),
  }),
  { nil: null },
);

const scenarioArbitrary = fc.record({
  hits: fc.array(hitArbitrary, { minLength: 0, maxLength: 80, size: 'large' }),
  pathCount: fc.integer({ min: 1, max: PATHS.length }),
  visitorCount: fc.integer({ min: 1, max: 8 }),
  /** Where batches end (modulo the number of hits); after each, nothing, a whole fold or one small fold step. */
  cuts: fc.array(fc.integer({ min: 1, max: 997 }), { maxLength: 6 }),
  foldAfter: fc.array(fc.constantFrom('none', 'all', 'step'), { minLength: 7, maxLength: 7 }),
  foldStep: fc.integer({ min: 1, max: 12 }),
  shuffleSeed: fc.integer(),
  ranges: fc.array(fc.tuple(boundArbitrary, boundArbitrary), { minLength: 1, maxLength: 4 }),
  limit: fc.integer({ min: 1, max: 4 }),
  sort: fc.option(fc.constantFrom('total', 'human', 'ai', 'path'), { nil: undefined }),
  order: fc.option(fc.constantFrom('asc', 'desc'), { nil: undefined }),
});

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const result = [...items];
  let state = seed >>> 0 || 1;
  for (let index = result.length - 1; index > 0; index--) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    const other = state % (index + 1);
    [result[index], result[other]] = [result[other]!, result[index]!];
  }
  return result;
}

describe.each(ANALYTICS_BACKENDS)('visitor and view counts equal a brute-force count [%s]', (dialect) => {
  let t: TestApp;
  let start: number;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    // Hits span the DAYS days before the clock's day.
    start = (Math.floor(t.clock.now() / DAY) - DAYS) * DAY;
  });
  afterAll(async () => t.close());

  const instant = (bound: { day: number; ms: number; asDate: boolean }) => start + bound.day * DAY + (bound.asDate ? 0 : bound.ms);
  const text = (bound: { day: number; ms: number; asDate: boolean }) => {
    const iso = new Date(instant(bound)).toISOString();
    return bound.asDate ? iso.slice(0, 10) : iso;
  };

  test('visitors and views: totals, pages, order (every sort and direction), date bounds and pagination, with out-of-order batches, whole and partial folds in between, part of the hits unfolded', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const project = await createTestProject(t.services);
        const key = (await t.services.keys.create({ projectId: project.id, scope: 'admin' })).key;
        const headers = { authorization: `Bearer ${key}` };
        const hits: OracleHit[] = scenario.hits.map((hit) => ({
          at: start + hit.day * DAY + hit.ms,
          path: PATHS[hit.path % scenario.pathCount]!,
          visitor: `v${hit.visitor % scenario.visitorCount}`,
          userAgent: hit.agent,
        }));

        const order = shuffled(hits, scenario.shuffleSeed);
        const cuts = [...new Set(scenario.cuts.map((cut) => cut % (order.length + 1)))].sort((a, b) => a - b);
        let previous = 0;
        for (const [index, cut] of [...cuts, order.length].entries()) {
          const batch = order.slice(previous, cut);
          previous = cut;
          const response = await t.app.inject({
            method: 'POST',
            url: `/v1/analytics/${project.id}/events`,
            headers,
            payload: {
              events: batch.map((hit) => ({ timestamp: new Date(hit.at).toISOString(), path: hit.path, visitorId: hit.visitor, userAgent: hit.userAgent })),
            },
          });
          expect(response.statusCode).toBe(202);
          expect(response.json().accepted).toBe(batch.length);
          // Later batches then land before, between and after folded visit days; reports
          // below find some hits folded and some not (the app's background fold may add to that).
          const fold = scenario.foldAfter[index % scenario.foldAfter.length];
          if (fold === 'all') await foldPending(t);
          else if (fold === 'step') await foldPending(t, scenario.foldStep, 1);
        }

        for (const [fromBound, toBound] of scenario.ranges) {
          const from = fromBound === null ? null : instant(fromBound);
          const to = toBound === null ? null : instant(toBound);
          const query: Record<string, string> = {};
          if (fromBound !== null) query.dateFrom = text(fromBound);
          if (toBound !== null) query.dateTo = text(toBound);
          if (from !== null && to !== null && from > to) {
            for (const report of ['visitors', 'views']) {
              const response = await t.app.inject({ method: 'GET', url: `/v1/analytics/${project.id}/${report}`, headers, query });
              expect(response.statusCode).toBe(400);
            }
            continue;
          }
          const ordering: Record<string, string> = {};
          if (scenario.sort !== undefined) ordering.sort = scenario.sort;
          if (scenario.order !== undefined) ordering.order = scenario.order;
          // /views is /visitors with hits for unique visitors: the same walk, against its own oracle.
          const oracles = { visitors: bruteForceVisitors(hits, from, to), views: bruteForceViews(hits, from, to) };
          for (const report of ['visitors', 'views'] as const) {
            const counted = oracles[report];
            const listed = report === 'views' ? oracles.views.views : oracles.visitors.visitors;
            const expected = { totals: counted.totals, list: oracleOrder(listed, scenario.sort, scenario.order) };
            const walked: unknown[] = [];
            for (let offset = 0; ; offset += scenario.limit) {
              const response = await t.app.inject({
                method: 'GET',
                url: `/v1/analytics/${project.id}/${report}`,
                headers,
                query: { ...query, ...ordering, limit: String(scenario.limit), offset: String(offset) },
              });
              expect(response.statusCode).toBe(200);
              const page = response.json();
              expect(page.totals).toEqual(expected.totals);
              expect(page[report]).toEqual(expected.list.slice(offset, offset + scenario.limit));
              expect(page.hasMore).toBe(offset + scenario.limit < expected.list.length);
              walked.push(...page[report]);
              if (!page.hasMore) break;
            }
            expect(walked).toEqual(expected.list);
            expect(new Set(walked.map((entry) => (entry as { path: string }).path)).size).toBe(walked.length);
          }

          const traffic = await t.app.inject({ method: 'GET', url: `/v1/analytics/${project.id}/traffic`, headers, query });
          expect(traffic.json().classes).toEqual(bruteForceClasses(hits, from, to));

          if (from !== null && to !== null) {
            const daily = (await t.app.inject({ method: 'GET', url: `/v1/analytics/${project.id}/visitors/daily`, headers, query })).json();
            for (const entry of daily.days as Array<{ date: string; human: number; ai: number; total: number }>) {
              const dayStart = Date.parse(`${entry.date}T00:00:00Z`);
              const expectedDay = bruteForceVisitors(hits, Math.max(from, dayStart), Math.min(to, dayStart + DAY)).totals;
              expect({ human: entry.human, ai: entry.ai, total: entry.total }).toEqual(expectedDay);
            }
          }
        }
      }),
      { numRuns: dialect === 'sqlite' ? 60 : 30 },
    );
  });
});
