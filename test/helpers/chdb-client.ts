import type { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';

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

/**
 * The part of ClickHouseClient the analytics code uses, answered by an in-process chdb
 * session, so the same code runs its SQL on a current ClickHouse. Its queries are
 * synchronous: they block the thread for their whole length (fine for scripts and
 * measurements, never for a server).
 */
export function chdbClient(session: ChdbSession): ClickHouseClient {
  const run = (query: string, format = 'JSONEachRow') => session.query(query, format);
  const client = {
    command: ({ query }: { query: string }) => Promise.resolve(run(query, 'CSV')).then(() => ({})),
    query: ({ query }: { query: string }) =>
      Promise.resolve({
        json: () =>
          Promise.resolve(
            run(query)
              .split('\n')
              .filter((line) => line !== '')
              .map((line) => JSON.parse(line) as unknown),
          ),
      }),
    insert: async ({ table, columns, values, format }: { table: string; columns: string[]; values: Readable; format: string }) => {
      const chunks: Buffer[] = [];
      for await (const chunk of values) chunks.push(Buffer.from(chunk as Buffer));
      run(`INSERT INTO ${table} (${columns.join(', ')}) FORMAT ${format}\n${Buffer.concat(chunks).toString('utf8')}`, 'CSV');
      return {};
    },
    close: () => Promise.resolve(),
  };
  return client as unknown as ClickHouseClient;
}
