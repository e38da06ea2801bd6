import { startClickHouse } from '../../test/helpers/clickhouse-server.js';
import type { BackendName } from './bench-arguments.js';
import { metric, type BenchMetric } from './suite-report.js';

export interface BenchClickHouse {
  /** The server settings that put a benchmark server's analytics in a new database of this ClickHouse. */
  environment(database: string): Record<string, string>;
  /** The clickhouse-server's process id. */
  pid: number;
  stop(): Promise<void>;
}

/** Starts a throw-away clickhouse-server (Debian's 18.16) in /tmp, as the test harness does. */
export async function startBenchClickHouse(options: { queryLog?: boolean } = {}): Promise<BenchClickHouse> {
  const server = await startClickHouse({ directoryPrefix: 'docwright-bench-ch-', queryLog: options.queryLog });
  return {
    environment(database) {
      if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
      return { DOCWRIGHT_ANALYTICS_URL: `${server.url}/${database}` };
    },
    pid: server.pid,
    stop: () => server.stop(),
  };
}

/** How reports name a backend; ClickHouse runs with its projects on SQLite. */
export function backendTitle(backend: BackendName): string {
  return { sqlite: 'SQLite', postgres: 'PostgreSQL', clickhouse: 'ClickHouse' }[backend];
}

export const CLICKHOUSE_CONTEXT =
  "ClickHouse 18.16 (Debian's clickhouse-server, default settings) for analytics over HTTP; projects and dictionaries on SQLite";

/** The ClickHouse targets (issue 13), as metrics beside the suite's own. */
export function clickhouseTargetMetrics(input: {
  firstMs: number;
  /** The limit for the dataset's size: 1 s after 1M hits, 5 s after 10M. */
  firstLimitMs: number;
  endToEndRate: number;
  p50Ms: number;
  rawBaseline: { name: string; value: number };
}): BenchMetric[] {
  return [
    metric({
      name: 'ClickHouse target: first exact visitors answer',
      value: input.firstMs,
      unit: 'ms',
      target: { of: 'value', comparison: 'at-most', limit: input.firstLimitMs },
    }),
    metric({
      name: 'ClickHouse target: ingest until queryable',
      value: input.endToEndRate,
      unit: 'hits/s',
      baseline: input.rawBaseline,
      target: { of: 'ratio', comparison: 'at-least', limit: 0.3 },
    }),
    metric({ name: 'ClickHouse target: visitors query p50', value: input.p50Ms, unit: 'ms', target: { of: 'value', comparison: 'at-most', limit: 300 } }),
  ];
}
