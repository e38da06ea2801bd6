import { LRUCache } from 'lru-cache';

/**
 * Where each operator's Web Bot Auth signer lives. A valid signature proves the request
 * came from the Signature-Agent's key holder; it proves the User-Agent's claim only when
 * that agent belongs to the operator the User-Agent names. Hosts match exactly or as a
 * subdomain. Operators absent here stay `claimed` even with a valid signature.
 */
export const SIGNER_DOMAINS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  openai: ['chatgpt.com', 'openai.com'],
  google: ['google.com', 'goog', 'googleapis.com'],
  anthropic: ['anthropic.com', 'claude.ai', 'claude.com'],
  perplexity: ['perplexity.ai'],
  microsoft: ['microsoft.com', 'bing.com'],
  amazon: ['amazon.com', 'amazonbot.amazon'],
  apple: ['apple.com'],
  cloudflare: ['cloudflare.com'],
});

export function signerBelongsTo(operator: string, agentUrl: string, domains: Readonly<Record<string, readonly string[]>> = SIGNER_DOMAINS): boolean {
  const owned = domains[operator.toLowerCase()];
  if (owned === undefined) return false;
  const host = hostOf(agentUrl);
  return host !== '' && owned.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** Signature-Agent origins and their hosts ('' for an origin that is not a URL). */
const hosts = new LRUCache<string, string>({ max: 256 });

/**
 * The host of a Signature-Agent origin, remembered for the 256 most recent origins: every
 * signed hit asks, an agent sends the same origin each time, and parsing a URL costs
 * ≈ 2 µs, more than the rest of this check.
 */
function hostOf(agentUrl: string): string {
  let host = hosts.get(agentUrl);
  if (host === undefined) {
    try {
      host = new URL(agentUrl).hostname.toLowerCase();
    } catch {
      host = '';
    }
    hosts.set(agentUrl, host);
  }
  return host;
}

/** Whether a host name ends in one of the suffixes, on a label boundary. */
export function hostHasSuffix(host: string, suffixes: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return suffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}
