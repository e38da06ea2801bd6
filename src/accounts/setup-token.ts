import { createHmac } from 'node:crypto';
import { tokensEqual } from './secret-token.js';

/**
 * The one-time token that creates the first admin. Derived from the instance secret with
 * HMAC rather than generated and stored: every process of an instance (several API nodes,
 * restarts) prints the same token, with no row to race on or clean up. It opens nothing
 * once a user exists, and whoever holds the instance secret controls the instance anyway.
 */
export function deriveSetupToken(instanceSecret: string): string {
  return createHmac('sha256', instanceSecret).update('docwright setup token v1').digest('hex').slice(0, 48);
}

export function isSetupToken(instanceSecret: string, presented: string): boolean {
  return tokensEqual(presented, deriveSetupToken(instanceSecret));
}
