import { startClickHouse } from '../../test/helpers/clickhouse-server.js';
import type { BackendName } from './bench-arguments.js';

export interface BenchClickHouse {
  /** The server settings that put a benchmark server's analytics in a new database of this ClickHouse. */
  environment(database: string): Record<string, string>;
  stop(): Promise<void>;
}

/** Starts a throw-away clickhouse-server (Debian's 18.16) in /tmp, as the test harness does. */
export async function startBenchClickHouse(): Promise<BenchClickHouse> {
  const server = await startClickHouse({ directoryPrefix: 'docwright-bench-ch-' });
  return {
    environment(database) {
      if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
      return { DOCWRIGHT_ANALYTICS_URL: `${server.url}/${database}` };
    },
    stop: () => server.stop(),
  };
}

/** How reports name a backend; ClickHouse runs with its projects on SQLite. */
export function backendTitle(backend: BackendName): string {
  return { sqlite: 'SQLite', postgres: 'PostgreSQL', clickhouse: 'ClickHouse' }[backend];
}

export const CLICKHOUSE_CONTEXT = "ClickHouse 18.16 (Debian's clickhouse-server, default settings) for analytics over HTTP; projects and dictionaries on SQLite";
