import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/build-app.js';
import type { Clock } from '../../src/core/clock.js';
import { createLogger } from '../../src/app/logger.js';
import { createServices, type Services } from '../../src/app/services.js';
import { openPostgresDatabase } from '../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { features } from '../../src/server/features.js';
import type { TestApp } from './test-app.js';

export interface SecondInstance {
  app: FastifyInstance;
  services: Services;
  close(): Promise<void>;
}

/**
 * Another server process on the test app's database, as far as the store can tell: its
 * own connections (SQLite file or PostgreSQL pool), notifier, caches and app. Shares only
 * the configuration and the clock (unless given one of its own).
 */
export async function openSecondInstance(t: TestApp, options: { clock?: Clock } = {}): Promise<SecondInstance> {
  const { dialect, location } = t.testDatabase;
  const database = dialect === 'postgres' ? openPostgresDatabase(location, { maxConnections: 5 }) : openSqliteDatabase(location);
  const services = await createServices({ config: t.config, database, clock: options.clock ?? t.clock });
  const app = await buildApp({ services, logger: createLogger({ level: 'silent' }), features });
  return {
    app,
    services,
    async close() {
      await app.close();
      await services.close();
    },
  };
}
