import { startEmbeddedPostgres } from '../../test/helpers/embedded-postgres-server.js';

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
  const postgres = await startEmbeddedPostgres({ directoryPrefix: 'docwright-bench-pg-', settings: POSTGRES_SETTINGS });
  return {
    adminUrl: postgres.adminUrl,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      await postgres.server.createDatabase(name);
      return `postgres://postgres:postgres@127.0.0.1:${postgres.port}/${name}`;
    },
    stop: () => postgres.stop(),
  };
}
