/**
 * Experiment, loaded into the server with `--import`: the statement cache, plus a 5-second
 * memory of authenticated keys in ApiKeyService.authenticate, so a poll costs one query
 * instead of two. (A real cache must also forget a key when it is revoked.)
 */
import './statement-cache-patch.js';
import { ApiKeyService } from '../../../src/keys/api-key-service.js';
import type { Principal } from '../../../src/keys/api-key.js';

const REMEMBER_MS = 5_000;
type Authenticate = (this: ApiKeyService, presented: string) => Promise<Principal | null>;
const prototype = ApiKeyService.prototype as unknown as { authenticate: Authenticate };
const original = prototype.authenticate;
const remembered = new Map<string, { at: number; principal: Principal | null }>();

prototype.authenticate = async function authenticateRemembered(this: ApiKeyService, presented: string): Promise<Principal | null> {
  const hit = remembered.get(presented);
  if (hit !== undefined && Date.now() - hit.at < REMEMBER_MS) return hit.principal;
  const principal = await original.call(this, presented);
  remembered.set(presented, { at: Date.now(), principal });
  return principal;
};
