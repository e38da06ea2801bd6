import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { serverCode } from '../../../src/analytics/clickhouse/clickhouse-trouble.js';
import { chdbClient, type ChdbSession } from '../../helpers/chdb-client.js';

/**
 * The chdb shim (test/helpers/chdb-client.ts) that `npm run check:chdb` runs the analytics
 * code through on a current ClickHouse. chdb itself is not installed in CI, so this checks
 * the shim against a recording session: it must answer every client call the analytics
 * code makes (the check broke unnoticed once when the hit insert moved to `exec`), pass
 * each call's settings, send RowBinary data as it is, and give errors as the HTTP client does.
 */
describe('chdb client shim', () => {
  const recording = (answer: (sql: string) => string = () => '') => {
    const queries: Array<{ sql: string; format: string | undefined; file: Buffer | null }> = [];
    const session: ChdbSession = {
      query(sql, format) {
        const infile = /FROM INFILE '([^']+)'/.exec(sql)?.[1];
        queries.push({ sql, format, file: infile === undefined ? null : readFileSync(infile) });
        return answer(sql);
      },
      cleanup() {},
    };
    return { client: chdbClient(session), queries };
  };

  test('implements every client method the ClickHouse analytics code calls', () => {
    const directory = join(import.meta.dirname, '../../../src/analytics/clickhouse');
    const called = new Set<string>();
    for (const file of readdirSync(directory).filter((name) => name.endsWith('.ts')))
      for (const [, method] of readFileSync(join(directory, file), 'utf8').matchAll(/[cC]lient\.(\w+)\(/g)) called.add(method!);
    expect([...called].sort()).toEqual(expect.arrayContaining(['command', 'exec', 'query']));
    const { client } = recording();
    for (const method of called) expect(typeof (client as unknown as Record<string, unknown>)[method], method).toBe('function');
  });

  test('a call with settings runs with them as a SETTINGS clause; rows come back parsed', async () => {
    const { client, queries } = recording(() => '{"n":"3"}\n{"n":"4"}\n');
    const result = await client.query({
      query: 'SELECT n FROM t',
      format: 'JSONEachRow',
      clickhouse_settings: { max_rows_in_set: '5', set_overflow_mode: 'throw' },
    });
    expect(await result.json()).toEqual([{ n: '3' }, { n: '4' }]);
    expect(queries).toEqual([{ sql: "SELECT n FROM t SETTINGS max_rows_in_set = 5, set_overflow_mode = 'throw'", format: 'JSONEachRow', file: null }]);
  });

  test('exec sends its data byte for byte, from a file the insert reads', async () => {
    const { client, queries } = recording();
    const rows = Buffer.from([0, 255, 10, 9, 39, 92, 1]);
    const result = await client.exec({ query: 'INSERT INTO db.t (a, b) FORMAT RowBinary', values: Readable.from([rows], { objectMode: false }) });
    expect(queries).toHaveLength(1);
    expect(queries[0]!.sql).toMatch(/^INSERT INTO db\.t \(a, b\) FROM INFILE '[^']+' FORMAT RowBinary$/);
    expect(queries[0]!.file).toEqual(rows);
    expect(await result.stream.toArray()).toEqual([]);
    // Anything else would run without its data: refused.
    await expect(client.exec({ query: 'SELECT 1', values: Readable.from([rows], { objectMode: false }) })).rejects.toThrow(/only INSERT/);
  });

  test("a failed query's error carries ClickHouse's error number as the HTTP client's do", async () => {
    const { client } = recording(() => {
      throw new Error('Query failed: Code: 191. DB::Exception: Limit for IN-set exceeded');
    });
    const error = await client.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then(
      () => null,
      (failure: unknown) => failure as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(serverCode(error!)).toBe('191');
  });
});
