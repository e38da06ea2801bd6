import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildService } from './child-service.js';
import { freePort } from './free-port.js';

/** Debian's package (`apt-get install clickhouse-server`, which .ci/run does): 18.16. */
export const CLICKHOUSE_SERVER = process.env.DOCWRIGHT_TEST_CLICKHOUSE_SERVER ?? '/usr/sbin/clickhouse-server';

export interface ClickHouseServer {
  port: number;
  /** The native TCP port (servers of a cluster talk over it), or undefined when it is not opened. */
  tcpPort: number | undefined;
  /** http://127.0.0.1:port, no database: each test names its own. */
  url: string;
  /** The server's process id (for CPU accounting in benchmarks). */
  pid: number;
  stop(): Promise<void>;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface ClickHouseServerOptions {
  directoryPrefix?: string;
  queryLog?: boolean;
  /** The HTTP port (default: a free one). */
  port?: number;
  /** Native TCP and interserver HTTP ports, for a server of a cluster (test/helpers/clickhouse-cluster.ts). */
  tcpPort?: number;
  interserverPort?: number;
  /** More top-level config.xml elements (zookeeper, remote_servers, macros, distributed_ddl). */
  extraConfig?: string;
}

/**
 * Starts a throw-away clickhouse-server for a test run or a benchmark: config.xml and
 * users.xml generated into a directory under /tmp (removed on stop), HTTP on a free
 * loopback port, and no native TCP or interserver port unless asked for (a port left out
 * of the config is not opened). Resolves once /ping answers.
 */
export async function startClickHouse(options: ClickHouseServerOptions = {}): Promise<ClickHouseServer> {
  if (!existsSync(CLICKHOUSE_SERVER)) {
    throw new Error(`${CLICKHOUSE_SERVER} is missing: install Debian's clickhouse-server package (apt-get install clickhouse-server), as .ci/run does`);
  }
  const root = mkdtempSync(join(tmpdir(), options.directoryPrefix ?? 'docwright-ch-'));
  const port = options.port ?? (await freePort());
  const clusterPorts =
    (options.tcpPort === undefined ? '' : `\n  <tcp_port>${options.tcpPort}</tcp_port>`) +
    (options.interserverPort === undefined
      ? ''
      : `\n  <interserver_http_port>${options.interserverPort}</interserver_http_port>\n  <interserver_http_host>127.0.0.1</interserver_http_host>`);
  const data = join(root, 'data');
  writeFileSync(
    join(root, 'config.xml'),
    `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${xml(join(root, 'server.log'))}</log><errorlog>${xml(join(root, 'server.err.log'))}</errorlog><console>0</console></logger>
  <http_port>${port}</http_port>${clusterPorts}
  <listen_host>127.0.0.1</listen_host>
  <path>${xml(data)}/</path>
  <tmp_path>${xml(data)}/tmp/</tmp_path>
  <user_files_path>${xml(data)}/user_files/</user_files_path>
  <format_schema_path>${xml(data)}/format_schemas/</format_schema_path>
  <users_config>${xml(join(root, 'users.xml'))}</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <max_concurrent_queries>200</max_concurrent_queries>${options.queryLog === true ? '\n  <query_log><database>system</database><table>query_log</table><flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>\n  <part_log><database>system</database><table>part_log</table><flush_interval_milliseconds>1000</flush_interval_milliseconds></part_log>' : ''}${options.extraConfig ?? ''}
</yandex>
`,
  );
  writeFileSync(
    join(root, 'users.xml'),
    `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage>${options.queryLog === true ? '<log_queries>1</log_queries>' : ''}</default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
`,
  );
  const url = `http://127.0.0.1:${port}`;
  const { pid, stop } = await startChildService({
    name: 'clickhouse-server',
    command: CLICKHOUSE_SERVER,
    args: [`--config-file=${join(root, 'config.xml')}`],
    root,
    ready: async () => (await fetch(`${url}/ping`)).ok,
    pollMs: 50,
    killAfterMs: 15_000,
  });
  return { port, tcpPort: options.tcpPort, url, pid, stop };
}
