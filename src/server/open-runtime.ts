import { systemClock, type Clock } from '../core/clock.js';
import type { Config } from '../config/load-config.js';
import { withoutUrlPassword } from '../core/url-password.js';
import type { Database } from '../db/database.js';
import { openDatabase } from '../db/open-database.js';
import { migrate } from '../db/migrator.js';
import { createServices, type ServiceOverrides, type Services } from '../app/services.js';
import type { Logger } from '../app/logger.js';

/**
 * Opens the store, migrates it (safe when several processes start together), builds the
 * services and upgrades stored credentials to the current format (safe likewise).
 */
export async function openRuntime(config: Config, clock: Clock = systemClock, overrides: ServiceOverrides = {}, logger?: Logger): Promise<Services> {
  let database: Database;
  try {
    database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    throw withoutUrlPassword(error, config.databaseUrl);
  }
  try {
    await migrate(database, clock);
  } catch (error) {
    await database.close().catch(() => {});
    // A driver's message about a connection must never carry DOCWRIGHT_DATABASE_URL's password.
    throw withoutUrlPassword(error, config.databaseUrl);
  }
  const services = await createServices({ config, database, clock, ...overrides, ...(logger === undefined ? {} : { logger }) });
  try {
    // Part of migrating: credentials older versions stored unbound are bound to their project.
    await services.projects.upgradeLegacyCredentials();
  } catch (error) {
    await services.close().catch(() => {});
    throw withoutUrlPassword(error, config.databaseUrl);
  }
  return services;
}
