import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { HitBatch } from '../../src/analytics/analytics-store.js';
import { ROWS_PER_STATEMENT, SqliteHitWriter } from '../../src/analytics/sqlite-hit-writer.js';
import { openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The writer inserts ROWS_PER_STATEMENT rows per statement and the tail one by one: every
 * batch length around those edges, with event ids repeated inside a batch and across
 * batches, must store exactly the rows a row-by-row insert would, in order.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('sqlite');
});
afterAll(async () => {
  await database.close();
});

interface Hit {
  eventId: string | null;
  page: number;
  agent: number;
  status: number;
  referrer: string | null;
  addressBlock: string | null;
}

const hitArbitrary = fc.record({
  eventId: fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { nil: null }),
  page: fc.integer({ min: 1, max: 1_000 }),
  agent: fc.integer({ min: 0, max: 3 }),
  status: fc.constantFrom(0, 200, 404),
  referrer: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
  addressBlock: fc.option(fc.constantFrom('192.0.2.0/24', '2001:db8::/48'), { nil: null }),
});

function batchOf(site: number, hits: Hit[], firstAt: number): HitBatch {
  const count = hits.length;
  const column = <T extends Record<number, number | bigint>>(array: T, value: (hit: Hit, index: number) => number | bigint): T => {
    hits.forEach((hit, index) => (array[index] = value(hit, index)));
    return array;
  };
  return {
    site,
    count,
    at: column(new Float64Array(count), (_, index) => firstAt + index),
    page: column(new Int32Array(count), (hit) => hit.page),
    visitor: column(new BigInt64Array(count), (hit, index) => BigInt(hit.page * 7 + index)),
    classCode: column(new Uint8Array(count), (hit) => (hit.agent === 0 ? 1 : 2)),
    agent: column(new Int32Array(count), (hit) => hit.agent),
    userAgent: column(new Int32Array(count), (hit) => hit.agent),
    referrer: hits.map((hit) => hit.referrer),
    markdownAccept: column(new Uint8Array(count), (hit) => hit.page % 2),
    classifierVersion: 1,
    eventId: hits.map((hit) => hit.eventId),
    category: column(new Uint8Array(count), (hit) => hit.agent),
    verification: column(new Uint8Array(count), (hit) => hit.agent % 2),
    readKind: column(new Uint8Array(count), (hit) => hit.page % 3),
    status: column(new Uint16Array(count), (hit) => hit.status),
    referral: column(new Int32Array(count), (hit) => (hit.referrer === null ? 0 : 1)),
    addressBlock: hits.map((hit) => hit.addressBlock),
    evidence: column(new Uint8Array(count), (hit) => (hit.addressBlock === null ? 0 : 2)),
  };
}

test('stores what a row-by-row insert would, in order, around every statement edge', () => {
  const raw = database.database.raw;
  if (raw.dialect !== 'sqlite') throw new Error('expected SQLite');
  const connection = raw.connection;
  const writer = new SqliteHitWriter(connection);
  let site = 0;
  const lengths = fc.oneof(
    fc.integer({ min: 0, max: 3 * ROWS_PER_STATEMENT + 1 }),
    fc.constantFrom(ROWS_PER_STATEMENT - 1, ROWS_PER_STATEMENT, ROWS_PER_STATEMENT + 1, 2 * ROWS_PER_STATEMENT),
  );
  const batches = lengths.chain((length) => fc.array(fc.array(hitArbitrary, { minLength: length, maxLength: length }), { minLength: 1, maxLength: 3 }));
  fc.assert(
    fc.property(batches, (hitBatches) => {
      site++;
      const seen = new Set<string>();
      const expected: unknown[] = [];
      let at = 1_000;
      for (const hits of hitBatches) {
        const batch = batchOf(site, hits, at);
        let duplicates = 0;
        hits.forEach((hit, index) => {
          if (hit.eventId !== null && seen.has(hit.eventId)) {
            duplicates++;
            return;
          }
          if (hit.eventId !== null) seen.add(hit.eventId);
          expected.push({
            at: batch.at[index],
            page: hit.page,
            visitor: batch.visitor[index],
            class: batch.classCode[index],
            agent: hit.agent === 0 ? null : hit.agent,
            user_agent: hit.agent === 0 ? null : hit.agent,
            referrer: hit.referrer,
            markdown_accept: hit.page % 2,
            classifier_version: 1,
            category: hit.agent,
            verification: hit.agent % 2,
            read_kind: hit.page % 3,
            status: hit.status === 0 ? null : hit.status,
            referral: hit.referrer === null ? null : 1,
            address_block: hit.addressBlock,
            evidence: hit.addressBlock === null ? 0 : 2,
          });
        });
        const result = connection.transaction(() => writer.write(batch))();
        expect(result).toEqual({ stored: hits.length - duplicates, duplicates });
        at += hits.length;
      }
      const stored = connection
        .prepare(
          `select at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, category, verification,
             read_kind, status, referral, address_block, evidence from analytics_hits where site = ? order by seq`,
        )
        .safeIntegers(true)
        .all(site)
        .map((row) =>
          Object.fromEntries(
            Object.entries(row as Record<string, unknown>).map(([key, value]) => [key, key === 'visitor' || typeof value !== 'bigint' ? value : Number(value)]),
          ),
        );
      expect(stored).toEqual(expected);
    }),
    { numRuns: 60 },
  );
});
