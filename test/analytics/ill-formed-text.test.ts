import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createAnalyticsKit, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';

/**
 * A string no backend can store as sent (an unpaired UTF-16 surrogate, high or low, or NUL)
 * in any string field of an event is a rejected event naming its field, on every backend:
 * never a 500, and never a failure of the batches stored beside it. ClickHouse once answered
 * 500 for a lone-surrogate id, and so did every request grouped with it in the writer; on
 * PostgreSQL a NUL did the same. The valid batches sent concurrently must all be counted
 * exactly by the reports.
 */
const FIELDS = ['id', 'path', 'query', 'userAgent', 'accept', 'referrer', 'visitorId'] as const;
type Field = (typeof FIELDS)[number];

/** What each field holds when valid; a bad character goes in at some position of it. */
const VALID: Record<Field, string> = {
  id: 'evt',
  path: '/bad/page',
  query: 'utm_source=chatgpt.com',
  userAgent: USER_AGENTS.human,
  accept: 'text/html,application/xhtml+xml',
  referrer: 'https://example.com/from',
  visitorId: 'visitor',
};

interface BadValue {
  field: Field;
  /** A lone surrogate's code unit (0xD800–0xDFFF), or 0 for NUL. */
  unit: number;
  /** Where it goes, as a fraction of the valid value's length. */
  at: number;
}

/** ASCII around the inserted unit, so a surrogate is always unpaired. */
function spliced(value: string, bad: BadValue): string {
  // Never before a path's leading "/": the value must fail for its text alone.
  const position = Math.max(1, Math.floor(bad.at * value.length));
  return value.slice(0, position) + String.fromCharCode(bad.unit) + value.slice(position);
}

function badEvent(bad: BadValue, run: string, serial: number): Record<string, unknown> {
  const event: Record<string, unknown> = { id: `${run}-bad-${serial}`, path: VALID.path, userAgent: VALID.userAgent, visitorId: `${run}-v` };
  if (bad.field === 'query') event.path = `${VALID.path}?${spliced(VALID.query, bad)}`;
  else if (bad.field === 'id') event.id = spliced(`${run}-${serial}`, bad);
  else event[bad.field] = spliced(VALID[bad.field], bad);
  return event;
}

const badValue = fc.record({
  field: fc.constantFrom(...FIELDS),
  unit: fc.oneof(fc.integer({ min: 0xd800, max: 0xdbff }), fc.integer({ min: 0xdc00, max: 0xdfff }), fc.constant(0)),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
});

/** A batch: valid events on a few pages, some with ids, and bad events among them (or none). */
const batchArbitrary = fc.record({
  valid: fc.array(fc.record({ page: fc.integer({ min: 0, max: 3 }), visitor: fc.integer({ min: 0, max: 9 }), withId: fc.boolean() }), {
    minLength: 1,
    maxLength: 20,
  }),
  bad: fc.oneof(fc.constant<BadValue[]>([]), fc.array(badValue, { minLength: 1, maxLength: 3 })),
  seed: fc.integer(),
});

// More and larger rounds on ClickHouse, where concurrent batches of a project share a writer group.
const SIZES = { sqlite: { runs: 3, batches: 6 }, postgres: { runs: 3, batches: 8 }, clickhouse: { runs: 6, batches: 13 } } as const;

describe.each(ANALYTICS_BACKENDS)('ill-formed text in an event [%s]', (backend) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(backend);
  });
  afterEach(async () => kit.close());

  const viewsByPath = async (): Promise<Map<string, number>> => {
    const response = await kit.get('views', { limit: 250 });
    expect(response.statusCode).toBe(200);
    return new Map(response.json().views.map((row: { path: string; total: number }) => [row.path, row.total]));
  };
  const totalHits = async (): Promise<number> =>
    (await kit.get('traffic')).json().classes.reduce((sum: number, entry: { hits: number }) => sum + entry.hits, 0);

  test('each bad event is rejected with its field; every valid batch sent beside it is stored exactly', async () => {
    const { runs, batches: maxBatches } = SIZES[backend];
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(batchArbitrary, { minLength: 2, maxLength: maxBatches }), async (batches) => {
        const run = `r${round++}`;
        const hitsBefore = await totalHits();
        const viewsBefore = await viewsByPath();
        const expectedViews = new Map<string, number>();
        let serial = 0;
        const sent = batches.map(({ valid, bad, seed }) => {
          const events: Array<Record<string, unknown>> = valid.map((hit) => {
            const path = `/${run}/p${hit.page}`;
            expectedViews.set(path, (expectedViews.get(path) ?? 0) + 1);
            const event: Record<string, unknown> = { path, visitorId: `${run}-${hit.visitor}`, userAgent: USER_AGENTS.human };
            if (hit.withId) event.id = `${run}-ok-${serial++}`;
            return event;
          });
          // The bad events go in at positions the seed picks, so their indexes vary.
          const rejected: Array<{ index: number; field: Field }> = [];
          bad.forEach((value, number) => {
            const index = Math.abs(seed + number * 7) % (events.length + 1);
            events.splice(index, 0, badEvent(value, run, serial++));
            for (const entry of rejected) if (entry.index >= index) entry.index += 1;
            rejected.push({ index, field: value.field });
          });
          return { events, rejected: rejected.sort((a, b) => a.index - b.index) };
        });
        const responses = await Promise.all(sent.map(({ events }) => kit.send(events)));
        responses.forEach((response, number) => {
          const { events, rejected } = sent[number]!;
          expect(response.statusCode, response.body).toBe(202);
          const body = response.json();
          expect(body.accepted).toBe(events.length - rejected.length);
          expect(body.duplicates).toBe(0);
          expect(body.rejected).toEqual(
            rejected.map(({ index, field }) => ({
              index,
              code: field === 'path' || field === 'query' ? 'invalid_path' : 'invalid_field',
              message: expect.stringMatching(new RegExp(`^${field === 'query' ? 'path' : field} must be well-formed text`)),
            })),
          );
        });
        const validCount = batches.reduce((sum, batch) => sum + batch.valid.length, 0);
        expect((await totalHits()) - hitsBefore).toBe(validCount);
        const viewsAfter = await viewsByPath();
        for (const [path, views] of expectedViews) expect(viewsAfter.get(path), path).toBe(views);
        // Nothing of a bad event was stored: its page has no views of this run.
        expect(viewsAfter.get(VALID.path) ?? 0).toBe(viewsBefore.get(VALID.path) ?? 0);
      }),
      { numRuns: runs, seed: 20_261_202, endOnFailure: true },
    );
  }, 240_000);
});
