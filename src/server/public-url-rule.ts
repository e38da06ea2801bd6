import { ConfigError, type Config } from '../config/load-config.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

/**
 * `docwright worker` writes pull-request links (local forge) but listens nowhere, so it
 * cannot derive the address users open: without DOCWRIGHT_PUBLIC_URL it refuses to start,
 * whatever the projects' forges are today (a local-forge project may be created at any
 * time, and a failed job hours later is worse than a failed deploy now).
 */
export function requirePublicUrlForWorker(config: Config): void {
  if (config.publicUrlIsSet) return;
  throw new ConfigError([
    'DOCWRIGHT_PUBLIC_URL: must be set for `docwright worker`, which listens nowhere and so cannot derive it: set it to the address users open the API and dashboard at (e.g. https://docwright.example.com); the pull-request links the worker writes start with it',
  ]);
}

/**
 * A warning when a server derived its public URL but others cannot use it: it listens on
 * a non-loopback address, so it is meant to be reached from other machines, yet its links
 * name an address only valid here (or one that a proxy in front hides).
 */
export function derivedPublicUrlWarning(config: Config): string | null {
  if (config.publicUrlIsSet || LOOPBACK.test(config.host)) return null;
  return `DOCWRIGHT_PUBLIC_URL is unset, so pull-request links and the setup link use ${config.publicUrl}; set it to the address users open (behind a proxy: the proxy's https URL).`;
}
