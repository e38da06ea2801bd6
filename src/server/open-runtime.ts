import { systemClock, type Clock } from '../core/clock.js';
import type { Config } from '../config/load-config.js';
import { openDatabase } from '../db/open-database.js';
import { migrate } from '../db/migrator.js';
import { createServices, type ServiceOverrides, type Services } from '../app/services.js';

/** Opens the store, migrates it (safe when several processes start together) and builds the services. */
export async function openRuntime(config: Config, clock: Clock = systemClock, overrides: ServiceOverrides = {}): Promise<Services> {
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(database, clock);
  } catch (error) {
    await database.close();
    throw error;
  }
  return createServices({ config, database, clock, ...overrides });
}
