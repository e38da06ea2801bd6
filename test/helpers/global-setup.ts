import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from './embedded-postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/**
 * Starts one real PostgreSQL for the whole run; each test then creates its own database
 * in it (see test/helpers/test-database.ts), so tests never see each other's rows.
 * Durability is off: a test database never outlives the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await startEmbeddedPostgres({
    directoryPrefix: 'docwright-pg-',
    settings: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=300'],
  });
  project.provide('postgresUrl', postgres.adminUrl);
  return () => postgres.stop();
}
