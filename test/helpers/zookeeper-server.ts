import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildService } from './child-service.js';
import { freePort } from './free-port.js';

/**
 * Debian's `zookeeper` package (3.8, `apt-get install zookeeper`, which .ci/run does): its
 * jar names the jars it needs in its manifest's Class-Path, so `java -cp` this one jar runs
 * the server. ClickHouse 18.16 needs ZooKeeper for replicated tables and ON CLUSTER DDL.
 */
export const ZOOKEEPER_JAR = process.env.DOCWRIGHT_TEST_ZOOKEEPER_JAR ?? '/usr/share/java/zookeeper.jar';
export const JAVA = process.env.DOCWRIGHT_TEST_JAVA ?? '/usr/bin/java';

export interface ZooKeeperServer {
  port: number;
  /** Creates znodes (parents first), through the package's own command-line client. */
  create(paths: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

/** Why ZooKeeper cannot run here, or undefined when it can. */
export function zookeeperMissing(): string | undefined {
  if (!existsSync(JAVA)) return `${JAVA} is missing: install a Java runtime (Debian's zookeeper package depends on one)`;
  if (!existsSync(ZOOKEEPER_JAR)) return `${ZOOKEEPER_JAR} is missing: install Debian's zookeeper package (apt-get install zookeeper), as .ci/run does`;
  return undefined;
}

/** The answer to a four-letter command ("srvr", whitelisted by default), or '' while the server is not up. */
function fourLetters(port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.end(command));
    socket.setTimeout(2_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('error', () => resolve(''));
    socket.on('close', () => resolve(text));
  });
}

/**
 * Starts a standalone ZooKeeper as a child process (ZooKeeperServerMain PORT DATADIR):
 * a free loopback port, its data in a directory under /tmp that stop() removes, no admin
 * HTTP server (it would take port 8080). Resolves once it answers "srvr".
 */
export async function startZooKeeper(): Promise<ZooKeeperServer> {
  const missing = zookeeperMissing();
  if (missing !== undefined) throw new Error(missing);
  const root = mkdtempSync(join(tmpdir(), 'docwright-zk-'));
  const port = await freePort();
  const { stop } = await startChildService({
    name: 'ZooKeeper',
    command: JAVA,
    args: [
      '-Xmx256m',
      '-Dzookeeper.admin.enableServer=false',
      // Test data: no fsync per transaction (the machine's disk is shared with the whole suite).
      '-Dzookeeper.forceSync=no',
      '-cp',
      ZOOKEEPER_JAR,
      'org.apache.zookeeper.server.ZooKeeperServerMain',
      String(port),
      root,
    ],
    root,
    ready: async () => (await fourLetters(port, 'srvr')).includes('Mode: standalone'),
    pollMs: 100,
    killAfterMs: 10_000,
  });
  const create = (paths: readonly string[]) =>
    new Promise<void>((resolve, reject) => {
      const cli = spawn(JAVA, ['-cp', ZOOKEEPER_JAR, 'org.apache.zookeeper.ZooKeeperMain', '-server', `127.0.0.1:${port}`], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      for (const stream of [cli.stdout, cli.stderr]) stream.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      cli.once('error', reject);
      cli.once('exit', (code) => {
        const missing = paths.filter((path) => !output.includes(`Created ${path}`) && !output.includes(`Node already exists: ${path}`));
        if (code === 0 && missing.length === 0) resolve();
        else reject(new Error(`ZooKeeper's client did not create ${missing.join(', ')} (exit ${code}): ${output}`));
      });
      cli.stdin.end(`${paths.map((path) => `create ${path}`).join('\n')}\nquit\n`);
    });
  return { port, create, stop };
}
