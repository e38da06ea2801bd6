import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';

/** What this project uses of the npm package chdb (ClickHouse 26.x in-process, never a dependency). */
export interface ChdbSession {
  query(sql: string, format?: string): string;
  cleanup(): void;
}
export interface ChdbModule {
  Session: new (path?: string) => ChdbSession;
}

/** chdb, from DOCWRIGHT_CHDB_MODULE (a path to an install elsewhere) or `npm install --no-save chdb`. */
export async function loadChdb(): Promise<ChdbModule> {
  return (await import(process.env.DOCWRIGHT_CHDB_MODULE ?? 'chdb')) as ChdbModule;
}

/** What a client call passes that the shim reads. */
interface Call {
  query: string;
  clickhouse_settings?: ClickHouseSettings;
}

/** A call's settings as the SETTINGS clause the HTTP interface would have applied ('' for none). */
function settingsClause(settings: ClickHouseSettings | undefined): string {
  const entries = Object.entries(settings ?? {}).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return '';
  const value = (setting: unknown) => (typeof setting === 'number' || /^\d+$/.test(String(setting)) ? String(setting) : `'${String(setting)}'`);
  return ` SETTINGS ${entries.map(([name, setting]) => `${name} = ${value(setting)}`).join(', ')}`;
}

/**
 * The part of ClickHouseClient the analytics code uses, answered by an in-process chdb
 * session, so the same code runs its SQL on a current ClickHouse. Its queries are
 * synchronous: they block the thread for their whole length (fine for scripts and
 * measurements, never for a server). Errors read as the HTTP interface's ("Code: N. …"),
 * so the code's checks of ClickHouse's error numbers see them.
 */
export function chdbClient(session: ChdbSession): ClickHouseClient {
  const run = (query: string, format = 'JSONEachRow', settings?: ClickHouseSettings) => {
    try {
      return session.query(`${query}${settingsClause(settings)}`, format);
    } catch (error) {
      throw new Error(String(error instanceof Error ? error.message : error).replace(/^Query failed: /, ''), { cause: error });
    }
  };
  const collect = async (values: Readable) => {
    const chunks: Buffer[] = [];
    for await (const chunk of values) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks);
  };
  const client = {
    command: async ({ query, clickhouse_settings }: Call) => {
      run(query, 'CSV', clickhouse_settings);
      return {};
    },
    // Run at once, as the HTTP client's query fails with the server's answer, not at json().
    query: async ({ query, clickhouse_settings }: Call) => {
      const rows = run(query, 'JSONEachRow', clickhouse_settings)
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as unknown);
      return { json: () => Promise.resolve(rows) };
    },
    insert: async ({ table, columns, values, format }: { table: string; columns: string[]; values: Readable; format: string }) => {
      run(`INSERT INTO ${table} (${columns.join(', ')}) FORMAT ${format}\n${(await collect(values)).toString('utf8')}`, 'CSV');
      return {};
    },
    // `INSERT … FORMAT F` with its data in `values` (RowBinary: not text, so it goes through a file).
    exec: async ({ query, values, clickhouse_settings }: Call & { values: Readable }) => {
      if (!/ FORMAT \w+$/.test(query)) throw new Error(`chdb shim: exec handles only INSERT … FORMAT F, not: ${query.slice(0, 200)}`);
      const file = join(tmpdir(), `docwright-chdb-${randomBytes(8).toString('hex')}.bin`);
      writeFileSync(file, await collect(values));
      try {
        run(query.replace(/ FORMAT (\w+)$/, ` FROM INFILE '${file}' FORMAT $1`), 'CSV', clickhouse_settings);
      } finally {
        rmSync(file, { force: true });
      }
      return { stream: Readable.from([]) };
    },
    close: () => Promise.resolve(),
  };
  return client as unknown as ClickHouseClient;
}
