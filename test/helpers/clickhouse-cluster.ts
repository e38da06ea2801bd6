import { startClickHouse, type ClickHouseServer } from './clickhouse-server.js';
import { freePort } from './free-port.js';
import { startZooKeeper, zookeeperMissing, type ZooKeeperServer } from './zookeeper-server.js';

/** The cluster's name in every server's remote_servers (DOCWRIGHT_ANALYTICS_CLUSTER). */
export const TEST_CLUSTER = 'docwright_test';

export interface ClickHouseCluster {
  name: string;
  /** One per shard (each shard has one replica), in shard order. */
  servers: readonly ClickHouseServer[];
  zookeeper: ZooKeeperServer;
  stop(): Promise<void>;
}

/**
 * Whether the cluster tests can run: ZooKeeper is needed, and CI (CI=true) must have it
 * (.ci/run installs it), so there its absence fails the run instead of skipping the tests.
 */
export function clusterUnavailable(): string | undefined {
  const missing = zookeeperMissing();
  if (missing !== undefined && process.env.CI === 'true') throw new Error(`CI must run the ClickHouse cluster tests: ${missing}`);
  return missing;
}

/**
 * Starts a ZooKeeper and `shards` clickhouse-server children (one replica per shard) that
 * form the cluster TEST_CLUSTER: each server knows every shard (remote_servers, native TCP
 * on a free port), its own {shard} and {replica} macros, the ZooKeeper, and the distributed
 * DDL queue, so ON CLUSTER DDL, ReplicatedMergeTree and Distributed tables work as on a real
 * cluster. stop() ends every process and removes every directory.
 */
export async function startClickHouseCluster(shards = 2): Promise<ClickHouseCluster> {
  // 18.16 can die of a segfault in its ZooKeeper client (zkutil::ZooKeeper::createImpl), on
  // every server at once, at the first ON CLUSTER statement (see startOnce): a cluster whose
  // distributed DDL does not answer is started again, at most three times.
  for (let attempt = 1; ; attempt++) {
    const cluster = await startOnce(shards);
    const problem = await distributedDdlProblem(cluster);
    if (problem === undefined) return cluster;
    await cluster.stop();
    if (attempt === 3) throw new Error(`the ClickHouse test cluster did not run distributed DDL after 3 starts: ${problem}`);
  }
}

/** Why an ON CLUSTER statement fails on the new cluster (every server must run it), or undefined. */
async function distributedDdlProblem(cluster: ClickHouseCluster): Promise<string | undefined> {
  const url = new URL(cluster.servers[0]!.url);
  url.searchParams.set('distributed_ddl_task_timeout', '30');
  try {
    const response = await fetch(url, { method: 'POST', body: `CREATE DATABASE IF NOT EXISTS cluster_ready ON CLUSTER ${cluster.name}` });
    if (!response.ok) return await response.text();
    for (const server of cluster.servers) if (!(await fetch(`${server.url}/ping`)).ok) return `${server.url} does not answer`;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function startOnce(shards: number): Promise<ClickHouseCluster> {
  const zookeeper = await startZooKeeper();
  // The distributed DDL queue exists before the servers start: 18.16's DDL workers and the
  // first ON CLUSTER statement otherwise race to create it (the segfault above, in about one
  // start of four on a loaded 2-core machine; none in 15 starts with the queue made first).
  await zookeeper.create(['/clickhouse', '/clickhouse/task_queue', '/clickhouse/task_queue/ddl']).catch(async (error: unknown) => {
    await zookeeper.stop();
    throw error;
  });
  const servers: ClickHouseServer[] = [];
  try {
    const ports = [];
    for (let shard = 0; shard < shards; shard++) ports.push({ http: await freePort(), tcp: await freePort(), interserver: await freePort() });
    const remote = ports
      .map((port) => `<shard><internal_replication>true</internal_replication><replica><host>127.0.0.1</host><port>${port.tcp}</port></replica></shard>`)
      .join('');
    const started = await Promise.allSettled(
      ports.map((port, shard) =>
        startClickHouse({
          directoryPrefix: `docwright-ch-cluster-${shard + 1}-`,
          port: port.http,
          tcpPort: port.tcp,
          interserverPort: port.interserver,
          extraConfig: `
  <zookeeper><node><host>127.0.0.1</host><port>${zookeeper.port}</port></node><session_timeout_ms>30000</session_timeout_ms></zookeeper>
  <remote_servers><${TEST_CLUSTER}>${remote}</${TEST_CLUSTER}></remote_servers>
  <macros><shard>${shard + 1}</shard><replica>replica_${shard + 1}</replica></macros>
  <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>`,
        }),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    await zookeeper.stop();
    throw error;
  }
  return {
    name: TEST_CLUSTER,
    servers,
    zookeeper,
    async stop() {
      await Promise.all(servers.map((server) => server.stop()));
      await zookeeper.stop();
    },
  };
}
