import type { FastifyInstance } from 'fastify';
import { ManualClock, type Clock } from '../../src/core/clock.js';
import { loadConfig, type Config } from '../../src/config/load-config.js';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { createServices, type Services } from '../../src/app/services.js';
import { features } from '../../src/server/features.js';
import { createClickHouseDatabase, openTestDatabase, primaryDialect, type AnalyticsBackend, type TestDatabase } from './test-database.js';
import type { Project } from '../../src/projects/project.js';

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  /** A ManualClock unless the test asked for another. */
  clock: ManualClock;
  config: Config;
  testDatabase: TestDatabase;
  close(): Promise<void>;
}

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';

export function testConfig(dataDir: string, environment: Record<string, string> = {}): Config {
  // Tests never refresh agent ranges from the operators (no network); they use fixtures.
  return loadConfig({
    DOCWRIGHT_DATA_DIR: dataDir,
    DOCWRIGHT_SECRET: TEST_SECRET,
    DOCWRIGHT_LOG_LEVEL: 'silent',
    DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS: '0',
    ...environment,
  });
}

/**
 * The real app on a fresh database of the given backend, with a manual clock. 'clickhouse'
 * is SQLite with analytics in a fresh ClickHouse database of the run's server.
 */
export async function createTestApp(backend: AnalyticsBackend, environment: Record<string, string> = {}, options: { clock?: Clock } = {}): Promise<TestApp> {
  const testDatabase = await openTestDatabase(primaryDialect(backend));
  const clickhouse = backend === 'clickhouse' ? createClickHouseDatabase() : undefined;
  const config = testConfig(testDatabase.dataDir, { ...clickhouse?.environment, ...environment });
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 5, 1, 12));
  const services = await createServices({ config, database: testDatabase.database, clock });
  const app = await buildApp({ services, logger: createLogger({ level: 'silent' }), features });
  return {
    app,
    services,
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- only worker-crash.test passes another clock, and never advances it
    clock: clock as ManualClock,
    config,
    testDatabase,
    async close() {
      await app.close();
      await services.notifier.close();
      await testDatabase.close();
      await clickhouse?.drop();
    },
  };
}

/** A project whose repository is a directory that only has to exist for the row. */
export async function createTestProject(
  services: Services,
  overrides: Partial<{ name: string; repository: string; forge: 'local' | 'github' | 'gitlab' }> = {},
): Promise<Project> {
  return services.projects.create({
    name: overrides.name ?? 'Docs',
    repository: overrides.repository ?? services.config.dataDir,
    ref: 'main',
    forge: overrides.forge ?? 'local',
    settings: {},
  });
}
