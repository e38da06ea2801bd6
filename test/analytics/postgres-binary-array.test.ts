import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { binaryBigintColumn, binaryIntegerColumn, binaryTextArray, INT2, INT4, INT8, type ColumnRow } from '../../src/analytics/postgres-binary-array.js';
import { openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

interface Columns {
  small: Int16Array;
  int: Int32Array;
  big: number[];
  hash: BigInt64Array;
}

/** Rows over two batches, interleaved, so the column is looked up again at every change of batch. */
function rowsOf(first: Columns, second: Columns): Array<ColumnRow<Columns>> {
  const rows: Array<ColumnRow<Columns>> = [];
  for (let index = 0; index < Math.max(first.int.length, second.int.length); index++) {
    if (index < first.int.length) rows.push({ batch: first, index });
    if (index < second.int.length) rows.push({ batch: second, index });
  }
  return rows;
}

describe('PostgreSQL binary arrays', () => {
  const batch: Columns = { small: Int16Array.of(1), int: Int32Array.of(1), big: [1], hash: BigInt64Array.of(1n) };

  test('refuses a value that does not fit the element type instead of sending wrong bytes', () => {
    const rows = [{ batch, index: 0 }];
    expect(() => binaryIntegerColumn(INT2, rows, () => [40_000])).toThrow(TypeError);
    expect(() => binaryIntegerColumn(INT4, rows, () => [2 ** 31])).toThrow(TypeError);
    expect(() => binaryIntegerColumn(INT8, rows, () => [1.5])).toThrow(TypeError);
    expect(() => binaryIntegerColumn(INT8, rows, () => [Number.NaN])).toThrow(TypeError);
    expect(() => binaryIntegerColumn(INT2, rows, () => [-32_768])).not.toThrow();
  });

  test('the header says whether there is a null, and the buffer ends at the last element', () => {
    const rows = [
      { batch, index: 0 },
      { batch, index: 1 },
    ];
    const withNull = binaryIntegerColumn(INT4, rows, () => [7, 0], true);
    expect(withNull.readInt32BE(4)).toBe(1);
    expect(withNull.length).toBe(20 + 8 + 4);
    const without = binaryIntegerColumn(INT4, rows, () => [7, 0]);
    expect(without.readInt32BE(4)).toBe(0);
    expect(without.length).toBe(20 + 16);
  });
});

describe('PostgreSQL binary arrays against a real PostgreSQL', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase('postgres');
  });
  afterAll(async () => t?.close());

  test('any integers, 64-bit hashes, nulls and strings come back exactly as given', async () => {
    if (t.database.raw.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    const pool = t.database.raw.pool;
    // PostgreSQL text cannot hold NUL; everything else must survive.
    const text = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((value) => !value.includes('\0'));
    const columns = fc.integer({ min: 0, max: 8 }).chain((length) =>
      fc.record({
        small: fc.array(fc.integer({ min: -32_768, max: 32_767 }), { minLength: length, maxLength: length }).map((values) => Int16Array.from(values)),
        int: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: length, maxLength: length }).map((values) => Int32Array.from(values)),
        big: fc.array(fc.oneof(fc.maxSafeInteger(), fc.constantFrom(0, -1, 2 ** 32, -(2 ** 32), 2 ** 32 - 1)), { minLength: length, maxLength: length }),
        hash: fc
          .array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { minLength: length, maxLength: length })
          .map((values) => BigInt64Array.from(values)),
      }),
    );
    await fc.assert(
      fc.asyncProperty(columns, columns, fc.array(fc.option(text, { nil: null }), { maxLength: 12 }), async (first, second, strings) => {
        const rows = rowsOf(first, second);
        const { rows: result } = await pool.query<{ small: number[]; int: Array<number | null>; big: string[]; hash: string[]; strings: Array<string | null> }>(
          'select $1::smallint[] as small, $2::integer[] as int, $3::bigint[] as big, $4::bigint[] as hash, $5::text[] as strings',
          [
            binaryIntegerColumn(INT2, rows, (batch) => batch.small),
            binaryIntegerColumn(INT4, rows, (batch) => batch.int, true),
            binaryIntegerColumn(INT8, rows, (batch) => batch.big),
            binaryBigintColumn(rows, (batch) => batch.hash),
            binaryTextArray(strings.length, (position) => strings[position]!),
          ],
        );
        const expected = <T>(read: (batch: Columns, index: number) => T): T[] => rows.map((row) => read(row.batch, row.index));
        // An empty array comes back as {} whatever its element type; bigint[] elements as text.
        expect(result[0]!.small).toEqual(expected((batch, index) => batch.small[index]!));
        expect(result[0]!.int).toEqual(expected((batch, index) => (batch.int[index] === 0 ? null : batch.int[index]!)));
        expect(result[0]!.big).toEqual(expected((batch, index) => String(batch.big[index])));
        expect(result[0]!.hash).toEqual(expected((batch, index) => String(batch.hash[index])));
        expect(result[0]!.strings).toEqual(strings);
      }),
      { numRuns: 150 },
    );
  });
});
