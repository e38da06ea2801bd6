import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HitBatch } from '../../../src/analytics/analytics-store.js';
import { HitRowEncoder, wordsOf } from '../../../src/analytics/clickhouse/clickhouse-hit-rows.js';
import { tsvField } from '../../../src/analytics/clickhouse/clickhouse-literal.js';

/**
 * HitRowEncoder writes bytes where the hit writer used to build one template string per
 * row: the text must be the same, byte for byte, for every value a batch can hold,
 * including the 64-bit edges of visitors (Int64) and nonces (UInt64) and hostile strings.
 */
const orNull = (value: number): string => (value === 0 ? '\\N' : String(value));
const DAY_MS = 86_400_000;

/** The row text as the hit writer built it before the encoder (commit 6600fd9). */
function templateRow(gen: number, batch: HitBatch, index: number, nonce: bigint): string {
  const at = batch.at[index]!;
  const eventId = batch.eventId[index] ?? null;
  return (
    `${gen}\t${batch.site}\t` +
    `${at}\t${Math.floor(at / DAY_MS)}\t${batch.page[index]}\t${batch.visitor[index]}\t${batch.classCode[index]}\t${batch.agent[index]}\t${batch.userAgent[index]}\t` +
    `${tsvField(batch.referrer[index] ?? null)}\t${batch.markdownAccept[index]}\t${batch.classifierVersion}\t${tsvField(eventId ?? '')}\t${eventId === null ? nonce : 0}\t` +
    `${batch.category[index]}\t${batch.verification[index]}\t${batch.readKind[index]}\t${orNull(batch.status[index]!)}\t${orNull(batch.referral[index]!)}\t` +
    `${tsvField(batch.addressBlock?.[index] ?? null)}\t${batch.evidence?.[index] ?? 0}\n`
  );
}

const INT64_EDGES = [0n, 1n, 9n, 10n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n - 1n, -1n, -(2n ** 32n), -(2n ** 53n), -(2n ** 63n)];
const UINT64_EDGES = [0n, 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 10n ** 19n - 1n, 10n ** 19n, 2n ** 64n - 1n];

const hostile = fc.oneof(fc.string(), fc.constantFrom('\\', '\t', '\n', '\r', '\0', '\\N', 'é€😀', '\t\\n\\'));
const hit = fc.record({
  at: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  page: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  visitor: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(...INT64_EDGES)),
  classCode: fc.integer({ min: 0, max: 255 }),
  agent: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  userAgent: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  referrer: fc.option(hostile, { nil: null }),
  markdownAccept: fc.integer({ min: 0, max: 1 }),
  eventId: fc.option(hostile, { nil: null }),
  nonce: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.constantFrom(...UINT64_EDGES)),
  small: fc.integer({ min: 0, max: 255 }),
  status: fc.constantFrom(0, 200, 404, 65_535),
  referral: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
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

describe('HitRowEncoder', () => {
  it('writes the same text as the per-row template strings, for any batch', () => {
    fc.assert(
      fc.property(
        fc.array(hit, { maxLength: 40 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 1, max: 2 ** 32 - 1 }),
        fc.integer({ min: 1, max: 1_000 }),
        (hits, gen, site, version) => {
          const batch = batchOf(hits, site, version);
          const nonces = BigUint64Array.from(hits, (h) => h.nonce);
          // Sized for one row, so long strings also exercise the buffer's growth.
          const encoder = new HitRowEncoder(1);
          const expected = hits.map((_, index) => {
            encoder.row(gen, batch, index, wordsOf(batch.visitor), wordsOf(nonces));
            return templateRow(gen, batch, index, nonces[index]!);
          });
          expect(encoder.bytes().toString('utf8')).toBe(expected.join(''));
        },
      ),
      { numRuns: 300 },
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
    expect(() => new HitRowEncoder(1).row(0, withTime, 0, new Uint32Array(2), new Uint32Array(2))).toThrow(/not an integer/);
  });
});
