import { createClient, type ClickHouseClient } from '@clickhouse/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { HitBatch } from '../../../src/analytics/analytics-store.js';
import { HIT_COLUMNS, HitRowEncoder, insertHitRows, wordsOf } from '../../../src/analytics/clickhouse/clickhouse-hit-rows.js';
import { migrateClickHouse, readTable, type ClickHouseTarget } from '../../../src/analytics/clickhouse/clickhouse-migrations.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createClickHouseDatabase } from '../../helpers/test-database.js';

/**
 * HitRowEncoder writes RowBinary, which ClickHouse reads without escaping or checks of its
 * own: a wrong width or length shifts every later column and row. So the rows are written
 * into the real analytics_hits table (every migration applied) of the run's
 * clickhouse-server and read back as JSON, for any batch: the 64-bit edges of times,
 * visitors (Int64) and nonces (UInt64), nulls, and hostile strings of every length class
 * of the length prefix (one, two and three LEB128 bytes).
 */
const DAY_MS = 86_400_000;

const INT64_EDGES = [0n, 1n, 9n, 10n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n - 1n, -1n, -(2n ** 32n), -(2n ** 53n), -(2n ** 63n)];
const UINT64_EDGES = [0n, 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 10n ** 19n - 1n, 10n ** 19n, 2n ** 64n - 1n];

const hostile = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme', minLength: 40, maxLength: 200 }),
  fc.constantFrom(
    '',
    '\\',
    '\t',
    '\n',
    '\r',
    '\0',
    '\\N',
    'é€😀',
    '\uD800',
    'a\uDFFFb',
    'x'.repeat(127),
    'x'.repeat(128),
    '€'.repeat(42),
    '€'.repeat(43),
    'é'.repeat(64),
    '€'.repeat(6_000),
  ),
);
const hit = fc.record({
  at: fc.oneof(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, 2 ** 47 + 5)),
  page: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  visitor: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(...INT64_EDGES)),
  classCode: fc.integer({ min: 0, max: 255 }),
  agent: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  userAgent: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  referrer: fc.option(hostile, { nil: null }),
  markdownAccept: fc.integer({ min: 0, max: 1 }),
  eventId: fc.option(hostile, { nil: null }),
  nonce: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.constantFrom(...UINT64_EDGES)),
  small: fc.integer({ min: 0, max: 255 }),
  status: fc.constantFrom(0, 200, 404, 65_535),
  referral: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  addressBlock: fc.option(hostile, { nil: null }),
});
type Hit = typeof hit extends fc.Arbitrary<infer T> ? T : never;

function batchOf(hits: Hit[], site: number, classifierVersion: number): HitBatch {
  const count = hits.length;
  return {
    site,
    count,
    at: Float64Array.from(hits, (h) => h.at),
    page: Int32Array.from(hits, (h) => h.page),
    visitor: BigInt64Array.from(hits, (h) => h.visitor),
    classCode: Uint8Array.from(hits, (h) => h.classCode),
    agent: Int32Array.from(hits, (h) => h.agent),
    userAgent: Int32Array.from(hits, (h) => h.userAgent),
    referrer: hits.map((h) => h.referrer),
    markdownAccept: Uint8Array.from(hits, (h) => h.markdownAccept),
    classifierVersion,
    eventId: hits.map((h) => h.eventId),
    category: Uint8Array.from(hits, (h) => h.small),
    verification: Uint8Array.from(hits, (h) => (h.small * 7) % 256),
    readKind: Uint8Array.from(hits, (h) => (h.small * 13) % 256),
    status: Uint16Array.from(hits, (h) => h.status),
    referral: Int32Array.from(hits, (h) => h.referral),
    addressBlock: hits.map((h) => h.addressBlock),
    evidence: Uint8Array.from(hits, (h) => h.small % 5),
  };
}

/** A row as ClickHouse 18.16's JSONEachRow gives it back (64-bit integers quoted). */
interface StoredRow {
  gen: number;
  site: number;
  at: string;
  day: number;
  page: number;
  visitor: string;
  class: number;
  agent: number;
  user_agent: number;
  referrer: string | null;
  markdown_accept: number;
  classifier_version: number;
  event_id: string;
  nonce: string;
  category: number;
  verification: number;
  read_kind: number;
  status: number | null;
  referral: number | null;
  address_block: string | null;
  evidence: number;
  written: string;
}

/** A string as its UTF-8 bytes read back (a lone surrogate becomes U+FFFD). */
const stored = (value: string): string => Buffer.from(value, 'utf8').toString('utf8');

function expectedRow(gen: number, batch: HitBatch, index: number, nonce: bigint, written: number): StoredRow {
  const at = batch.at[index]!;
  const eventId = batch.eventId[index] ?? null;
  const text = (value: string | null | undefined): string | null => (value === null || value === undefined ? null : stored(value));
  return {
    gen,
    site: batch.site,
    at: String(at),
    day: Math.floor(at / DAY_MS),
    page: batch.page[index]!,
    visitor: String(batch.visitor[index]),
    class: batch.classCode[index]!,
    agent: batch.agent[index]!,
    user_agent: batch.userAgent[index]!,
    referrer: text(batch.referrer[index]),
    markdown_accept: batch.markdownAccept[index]!,
    classifier_version: batch.classifierVersion,
    event_id: stored(eventId ?? ''),
    nonce: String(eventId === null ? nonce : 0n),
    category: batch.category[index]!,
    verification: batch.verification[index]!,
    read_kind: batch.readKind[index]!,
    status: batch.status[index] === 0 ? null : batch.status[index]!,
    referral: batch.referral[index] === 0 ? null : batch.referral[index]!,
    address_block: text(batch.addressBlock?.[index]),
    evidence: batch.evidence?.[index] ?? 0,
    written: String(written),
  };
}

/** Rows in one order whatever order the table keeps them in. */
const sorted = (rows: StoredRow[]): string[] => rows.map((row) => JSON.stringify(row)).sort();

describe('HitRowEncoder', () => {
  const database = createClickHouseDatabase();
  const target: ClickHouseTarget = { database: new URL(database.environment.DOCWRIGHT_ANALYTICS_URL!).pathname.slice(1), cluster: undefined };
  let client: ClickHouseClient;
  beforeAll(async () => {
    client = createClient({ url: inject('clickhouseUrl') });
    await migrateClickHouse(client, target, new ManualClock(Date.UTC(2026, 0, 1)));
  });
  afterAll(async () => {
    await client.close();
    await database.drop();
  });

  it('writes rows that ClickHouse reads back as they were, for any batch', async () => {
    let site = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(hit, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.oneof(fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
        async (hits, gen, version, written) => {
          site += 1;
          const batch = batchOf(hits, site, version);
          const nonces = BigUint64Array.from(hits, (h) => h.nonce);
          // Sized for one row, so long strings also exercise the buffer's growth.
          const encoder = new HitRowEncoder(1, written);
          hits.forEach((_, index) => encoder.row(gen, batch, index, wordsOf(batch.visitor), wordsOf(nonces)));
          await insertHitRows(client, readTable(target, 'analytics_hits'), encoder.bytes());
          const rows = await (
            await client.query({
              query: `SELECT ${HIT_COLUMNS.join(', ')} FROM ${readTable(target, 'analytics_hits')} WHERE site = ${site}`,
              format: 'JSONEachRow',
            })
          ).json<StoredRow>();
          expect(sorted(rows)).toEqual(sorted(hits.map((_, index) => expectedRow(gen, batch, index, nonces[index]!, written))));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads 64-bit columns that are views into a larger buffer', () => {
    const backing = new BigInt64Array(4);
    backing.set([5n, -(2n ** 63n), 2n ** 63n - 1n, 7n]);
    const view = backing.subarray(1, 3);
    const words = wordsOf(view);
    expect(words.length).toBe(4);
    expect(BigInt.asIntN(64, (BigInt(words[1]!) << 32n) | BigInt(words[0]!))).toBe(-(2n ** 63n));
    expect(BigInt.asIntN(64, (BigInt(words[3]!) << 32n) | BigInt(words[2]!))).toBe(2n ** 63n - 1n);
  });

  it('refuses a hit time that is not an integer', () => {
    const batch = batchOf([], 1, 1);
    const withTime = { ...batch, count: 1, at: Float64Array.of(1.5), eventId: [null] };
    expect(() => new HitRowEncoder(1, 0).row(0, withTime, 0, new Uint32Array(2), new Uint32Array(2))).toThrow(/not an integer/);
    expect(() => new HitRowEncoder(1, 0.5)).toThrow(/not an integer/);
  });
});
