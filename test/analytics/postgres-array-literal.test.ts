import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { integerArrayLiteral, textArrayLiteral } from '../../src/analytics/postgres-array-literal.js';
import { openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const all = (length: number): number[] => Array.from({ length }, (_, index) => index);

describe('PostgreSQL array literals', () => {
  test('integers and nulls, only at the given indexes, in their order', () => {
    const values = [5, null, -7, 9_007_199_254_740_991];
    expect(integerArrayLiteral(all(4), (index) => values[index]!)).toBe('{5,NULL,-7,9007199254740991}');
    expect(integerArrayLiteral([3, 0], (index) => values[index]!)).toBe('{9007199254740991,5}');
    expect(integerArrayLiteral([0], () => -9_223_372_036_854_775_808n)).toBe('{-9223372036854775808}');
    expect(integerArrayLiteral([], () => 1)).toBe('{}');
  });

  test('refuses a value that is not an integer instead of sending a wrong literal', () => {
    expect(() => integerArrayLiteral([0], () => 1.5)).toThrow(TypeError);
    expect(() => integerArrayLiteral([0], () => Number.NaN)).toThrow(TypeError);
  });

  test('text is always quoted, so NULL, braces, commas and spaces stay text', () => {
    const values = ['a', 'NULL', null, 'x,"y"\\z', '{ }', ''];
    expect(textArrayLiteral(all(values.length), (index) => values[index]!)).toBe('{"a","NULL",NULL,"x,\\"y\\"\\\\z","{ }",""}');
  });
});

describe('PostgreSQL array literals against a real PostgreSQL', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase('postgres');
  });
  afterAll(async () => t?.close());

  test('any strings and integers come back exactly as given', async () => {
    if (t.database.raw.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    const pool = t.database.raw.pool;
    // PostgreSQL text cannot hold NUL; everything else must survive.
    const text = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((value) => !value.includes('\0'));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(text, { nil: null }), { maxLength: 12 }),
        fc.array(fc.option(fc.maxSafeInteger(), { nil: null }), { maxLength: 12 }),
        async (strings, integers) => {
          const { rows } = await pool.query<{ strings: Array<string | null>; integers: Array<string | null> }>(
            'select $1::text[] as strings, $2::bigint[] as integers',
            [textArrayLiteral(all(strings.length), (index) => strings[index]!), integerArrayLiteral(all(integers.length), (index) => integers[index]!)],
          );
          expect(rows[0]!.strings).toEqual(strings);
          // bigint[] elements come back as text (only scalar int8 has a number parser).
          expect(rows[0]!.integers).toEqual(integers.map((value) => (value === null ? null : String(value))));
        },
      ),
      { numRuns: 150 },
    );
  });
});
