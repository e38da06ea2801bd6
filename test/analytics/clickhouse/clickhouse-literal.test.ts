import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { identifier, integerLiteral, listLiteral, literal, raw, sql, stringLiteral, tsvField } from '../../../src/analytics/clickhouse/clickhouse-literal.js';

/** One query against the run's clickhouse-server (18.16), its single JSONEachRow row. */
async function selectRow<Row>(query: string): Promise<Row> {
  const response = await fetch(`${inject('clickhouseUrl')}/?default_format=JSONEachRow`, { method: 'POST', body: query });
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${text} for ${query}`);
  return JSON.parse(text) as Row;
}

/** Characters that end, escape or confuse a literal, and whole-string attacks. */
const HOSTILE = [
  '\\',
  "'",
  '"',
  '`',
  '\n',
  '\r',
  '\t',
  '\0',
  '\b',
  '\f',
  '\v',
  '\x1b',
  '\x7f',
  '\\x',
  "\\'",
  "''",
  '?',
  '{a:String}',
  ';',
  '--',
  '/*',
  '*/',
  '\u00e9',
  '\u2028',
  '😀',
  '\ufeff',
];
const hostileString = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...HOSTILE),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});
const hex = (value: string) => Buffer.from(value, 'utf8').toString('hex').toUpperCase();

describe('ClickHouse literals (the one encoder of values into SQL)', () => {
  test('a hostile string read back by the real server is the same string, byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(hostileString, async (value) => {
        const row = await selectRow<{ h: string; n: number }>(sql`SELECT hex(${value}) AS h, 1 AS n`);
        expect(row).toEqual({ h: hex(value), n: 1 });
      }),
      { numRuns: 300 },
    );
  });

  test('arrays and IN lists of hostile strings keep every element and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileString, { minLength: 1, maxLength: 6 }), async (values) => {
        const row = await selectRow<{ h: string[]; hit: number }>(
          sql`SELECT arrayMap(x -> hex(x), ${values}) AS h, ${values[0]!} IN ${listLiteral(values)} AS hit`,
        );
        expect(row).toEqual({ h: values.map(hex), hit: 1 });
      }),
      { numRuns: 100 },
    );
  });

  test('TabSeparated fields (the bulk insert path) of hostile strings and null are stored as sent', async () => {
    const server = inject('clickhouseUrl');
    const table = `default.tsv_probe_${process.pid}_${Date.now()}`;
    const post = async (query: string, body?: string) => {
      const response = await fetch(`${server}/?query=${encodeURIComponent(query)}`, { method: 'POST', body: body ?? '' });
      if (!response.ok) throw new Error(await response.text());
      return response.text();
    };
    await post(`CREATE TABLE ${table} (run UInt32, position UInt32, s Nullable(String)) ENGINE = Memory`);
    try {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.option(hostileString, { nil: null }), { minLength: 1, maxLength: 5 }), async (values) => {
          run++;
          await post(`INSERT INTO ${table} FORMAT TabSeparated`, values.map((value, position) => `${run}\t${position}\t${tsvField(value)}\n`).join(''));
          const stored = await selectRow<{ nulls: number[]; h: string[] }>(
            `SELECT groupArray(isNull(s)) AS nulls, groupArray(hex(ifNull(s, ''))) AS h FROM (SELECT s FROM ${table} WHERE run = ${run} ORDER BY position)`,
          );
          expect(stored).toEqual({ nulls: values.map((value) => (value === null ? 1 : 0)), h: values.map((value) => hex(value ?? '')) });
        }),
        { numRuns: 100 },
      );
    } finally {
      await post(`DROP TABLE IF EXISTS ${table}`);
    }
  });

  test('integers reach the server as the same integer, Int64 range included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n })),
        async (value) => {
          const row = await selectRow<{ s: string }>(sql`SELECT toString(toInt64(${value})) AS s`);
          expect(row.s).toBe(String(value));
        },
      ),
      { numRuns: 100 },
    );
  });

  test('values that have no exact literal are refused, not approximated', () => {
    for (const bad of [Number.NaN, Infinity, -Infinity, 1.5, 2 ** 53, -(2 ** 53)]) expect(() => integerLiteral(bad)).toThrow(TypeError);
    expect(integerLiteral(-0)).toBe('0');
    expect(() => stringLiteral('a\uD800b')).toThrow(TypeError);
    expect(() => stringLiteral('\uDC00')).toThrow(TypeError);
    expect(stringLiteral('😀')).toBe("'😀'");
    expect(() => listLiteral([])).toThrow(TypeError);
    expect(literal([1, 'a', [2n]])).toBe("[1, 'a', [2]]");
  });

  test('identifiers are plain names only; raw SQL is inserted as is', () => {
    expect(identifier('docwright_1')).toBe('`docwright_1`');
    for (const bad of ['', '1db', 'a`b', 'a b', 'a.b', 'a-b', 'x'.repeat(64)]) expect(() => identifier(bad)).toThrow(TypeError);
    expect(sql`SELECT ${raw('1 + 1')}, ${'x'}`).toBe("SELECT 1 + 1, 'x'");
  });
});
