import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, test } from 'vitest';
import { clickhouseTrouble } from '../../../src/analytics/clickhouse/clickhouse-trouble.js';
import { databaseTrouble } from '../../../src/db/database-unavailable.js';

const serverError = (code: string, message = 'DB::Exception: …') => new ClickHouseError({ code, message, type: 'X' });

/** How the API answers a failed ClickHouse call (databaseTrouble: a 503, or undefined: a 500). */
const answered = (error: Error) => databaseTrouble(clickhouseTrouble(error));

describe('ClickHouse failures as the API answers them', () => {
  test('a server, replica or ZooKeeper that could not take part is database_unavailable; an overloaded server database_busy', () => {
    for (const code of ['209', '210', '225', '244', '254', '265', '279', '285']) expect(answered(serverError(code)), code).toBe('database_unavailable');
    for (const code of ['159', '202', '252']) expect(answered(serverError(code)), code).toBe('database_busy');
  });

  test('a numbered error about the statement stays a fault of ours (500), unchanged', () => {
    for (const code of ['62', '60', '47', '241']) {
      const error = serverError(code);
      expect(clickhouseTrouble(error)).toBe(error);
      expect(answered(error)).toBeUndefined();
    }
  });

  test("18.16's wording, which the client leaves a plain Error, is read by its number too", () => {
    const exists = new Error(
      'Code: 44, e.displayText() = DB::Exception: Cannot add column category: column with this name already exists, e.what() = DB::Exception\n',
    );
    expect(clickhouseTrouble(exists)).toBe(exists);
    const network = new Error('Code: 210, e.displayText() = DB::NetException: Connection refused (shard-2:9000), e.what() = DB::NetException\n');
    expect(answered(network)).toBe('database_unavailable');
    expect(
      answered(new Error('Code: 252, e.displayText() = DB::Exception: Too many parts (300). Merges are processing significantly slower than inserts.')),
    ).toBe('database_busy');
  });

  test('an HTTP error from something in front of ClickHouse (its body only) is database_unavailable, the cause kept for the log', () => {
    const gateway = new Error('<html><body>502 Bad Gateway</body></html>');
    const named = clickhouseTrouble(gateway) as Error;
    expect(databaseTrouble(named)).toBe('database_unavailable');
    expect(named.cause).toBe(gateway);
    expect(named.message).toContain('502 Bad Gateway');
  });

  test('a socket error keeps its code (already a 503), and a programming error of another class is left alone', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
    expect(clickhouseTrouble(refused)).toBe(refused);
    expect(databaseTrouble(refused)).toBe('database_unavailable');
    const bug = new TypeError('x is not a function');
    expect(clickhouseTrouble(bug)).toBe(bug);
    expect(answered(bug)).toBeUndefined();
  });
});
