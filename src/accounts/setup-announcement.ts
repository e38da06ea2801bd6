import type { Logger } from '../app/logger.js';
import type { Services } from '../app/services.js';
import { deriveSetupToken } from './setup-token.js';

/**
 * While no user exists, prints the setup token at start-up: the one secret the log ever
 * carries on purpose. It is in the message, not a field, so no redaction rule can hide it;
 * it opens nothing once the first user exists.
 */
export async function announceSetup(services: Services, logger: Logger): Promise<void> {
  if (!(await services.accounts.setupRequired())) return;
  const token = deriveSetupToken(services.config.secret);
  logger.warn(
    `No dashboard user yet. Open ${services.config.publicUrl}/setup and enter the setup token ${token} to create the first admin (or run: docwright users create --email YOU --role admin).`,
  );
}
