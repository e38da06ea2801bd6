import type { Config } from '../../config/load-config.js';
import type { Clock } from '../../core/clock.js';
import { VerificationService, type VerificationNetwork } from './verification-service.js';

interface VerificationLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/**
 * The process's verification service, started: ranges loaded from the data directory (or
 * the shipped file), refreshed on the configured schedule (from the operators, or the
 * configured mirror), and re-read when another process rewrites the file. Null when
 * DOCWRIGHT_AGENT_VERIFICATION=off: hits are then only ever `claimed`, and nothing is
 * fetched from the network.
 */
export function createVerificationService(config: Config, clock: Clock, log?: VerificationLog, network: VerificationNetwork = {}): VerificationService | null {
  if (!config.analytics.verification.enabled) return null;
  const service = new VerificationService({
    ...network,
    clock,
    dataDir: config.dataDir,
    rangeRefreshMs: config.analytics.verification.rangeRefreshMs,
    ...(config.analytics.verification.rangesFrom === null ? {} : { rangesFrom: config.analytics.verification.rangesFrom }),
    onRefresh: (result) => log?.info({ version: result.file.version, lists: result.lists }, 'agent ranges refreshed'),
    onError: (message, error) => log?.warn({ err: error }, message),
    onDirectoryFailure: (line) => log?.warn(line, 'key directory could not be fetched'),
  });
  service.start().catch((error: unknown) => log?.warn({ err: error }, 'agent ranges could not be loaded'));
  return service;
}
