import type { KeyObject } from 'node:crypto';
import { verifyEd25519 } from './ed25519-verify.js';
import type { SeenNonce, SignatureHeaders } from './hit-verifier.js';
import { nonceDigest, ownerDigest, type NonceRegistry } from './nonce-registry.js';
import { ledgerKey } from './ledger-key.js';
import { parseWebBotAuthSignature } from './signature-base.js';
import { normaliseAuthority } from './signed-authority.js';

/** What the verifier knows of one agent's key directory; filled in off the ingest path. */
/** `fresh`: within its caching lifetime. A stale directory still verifies, and is fetched again. */
export type DirectoryState = { state: 'unknown' } | { state: 'failed' } | { state: 'ready'; fresh: boolean; key(keyId: string): KeyObject | null };

export interface KeyLookup {
  directory(agentUrl: string): DirectoryState;
}

export type SignatureVerdict =
  /** `stale`: the directory is past its caching lifetime; the caller asks for it again. */
  | { result: 'valid'; agentUrl: string; stale: boolean }
  /** Checked and wrong: bad signature, unknown key in a fresh directory, outside its window, or replayed. */
  | { result: 'invalid'; agentUrl: string; reason: string }
  /**
   * The agent's directory is not fetched yet, or is stale and lacks the key (it may have
   * rotated keys): the caller asks for it; or it could not be fetched.
   */
  | { result: 'pending' | 'unavailable'; agentUrl: string }
  | { result: 'malformed' | 'unverifiable'; reason: string };

export interface WindowPolicy {
  /** Clock skew tolerated on created and expires, in seconds. */
  skewSeconds: number;
  /** Longest accepted expires - created, in seconds: the nonce memory must outlive it. */
  maxLifetimeSeconds: number;
}

export const DEFAULT_WINDOW: WindowPolicy = Object.freeze({ skewSeconds: 60, maxLifetimeSeconds: 86_400 });

const MEMO_ENTRIES = 4_096;

export interface VerifyOptions {
  policy?: WindowPolicy;
  memo?: SignatureMemo | null;
  /** The event's id: the same event sent again reuses its nonce without being a replay. */
  eventId?: string | null;
  /** The site's hosts (normalised); the signed @authority must be one. Null: not comparable, `unverifiable`. */
  authorities?: readonly string[] | null;
  /** Hears each nonce this process saw first, for the deployment-wide claim (nonce-ledger.ts). */
  onNonce?: ((nonce: SeenNonce) => void) | null;
}

/**
 * Signatures already found valid, by their full input, when they carry no nonce. Ed25519
 * signing is deterministic, so a signer without nonces sends the same headers for every
 * request of a second to the same site; an Ed25519 check costs ~60 µs, a lookup nothing.
 * The window is still checked on every hit. (With a nonce, the same input twice is a
 * replay, rejected by the nonce table, so those are never remembered.)
 */
export class SignatureMemo {
  private valid = new Map<string, number>();

  has(key: string): boolean {
    return this.valid.has(key);
  }

  add(key: string, expires: number): void {
    if (this.valid.size >= MEMO_ENTRIES) this.valid = new Map();
    this.valid.set(key, expires);
  }
}

/**
 * Verifies a request's Web Bot Auth signature (draft-ietf-webbotauth-httpsig-protocol over
 * RFC 9421) at the instant `at` (the hit's time, milliseconds). Synchronous: the key comes
 * from the lookup, which never touches the network. The nonce is recorded only once the
 * signature itself is valid, so forged requests cannot fill the replay table.
 */
export function verifyWebBotAuth(
  headers: SignatureHeaders,
  keys: KeyLookup,
  at: number,
  nonces: NonceRegistry | null,
  options: VerifyOptions = {},
): SignatureVerdict {
  const { policy = DEFAULT_WINDOW, memo = null, eventId = null } = options;
  const parsed = parseWebBotAuthSignature(headers);
  if ('problem' in parsed) return { result: parsed.problem, reason: parsed.reason };
  const { agentUrl } = parsed;
  // The signature covers @authority (parseWebBotAuthSignature insists): one made for another
  // host is someone else's request replayed here. With no site named, nothing can be compared.
  const authorities = options.authorities ?? null;
  if (authorities === null) return { result: 'unverifiable', reason: 'the project names no site host to compare the signed @authority with' };
  if (!authorities.includes(normaliseAuthority(headers.authority)))
    return { result: 'invalid', agentUrl, reason: `the signature was made for ${headers.authority.slice(0, 255)}, not this site` };
  const directory = keys.directory(agentUrl);
  if (directory.state === 'unknown') return { result: 'pending', agentUrl };
  if (directory.state === 'failed') return { result: 'unavailable', agentUrl };
  const key = directory.key(parsed.keyId);
  if (key === null) {
    if (!directory.fresh) return { result: 'pending', agentUrl };
    return { result: 'invalid', agentUrl, reason: `key ${parsed.keyId.slice(0, 64)} is not in ${agentUrl}'s directory` };
  }

  const now = Math.floor(at / 1000);
  if (parsed.expires < parsed.created) return { result: 'invalid', agentUrl, reason: 'expires is before created' };
  if (parsed.expires - parsed.created > policy.maxLifetimeSeconds) return { result: 'invalid', agentUrl, reason: 'the signature is valid for too long' };
  if (parsed.created > now + policy.skewSeconds) return { result: 'invalid', agentUrl, reason: 'created is in the future' };
  if (parsed.expires < now - policy.skewSeconds) return { result: 'invalid', agentUrl, reason: 'the signature has expired' };

  const memoKey = memo !== null && parsed.nonce === null ? `${agentUrl}\n${parsed.keyId}\n${headers.signature}\n${parsed.base}` : null;
  if (memoKey === null || !memo!.has(memoKey)) {
    if (!verifyEd25519(Buffer.from(parsed.base, 'utf8'), key, parsed.signature)) return { result: 'invalid', agentUrl, reason: 'the signature does not match' };
    if (memoKey !== null) memo!.add(memoKey, parsed.expires);
  }
  if (parsed.nonce !== null && nonces !== null) {
    const scope = `${agentUrl} ${parsed.keyId}`;
    const expiresAt = parsed.expires + policy.skewSeconds;
    // One hash each, shared by this process's table and the deployment-wide one.
    const digest = nonceDigest(scope, parsed.nonce);
    const owner = eventId === null ? null : ownerDigest(eventId);
    if (!nonces.rememberDigest(digest, expiresAt, now, owner)) return { result: 'invalid', agentUrl, reason: 'the nonce was already used' };
    // Other processes' replays are caught when the batch is stored (nonce-ledger.ts): the
    // expiry, then 128 bits of the digest, in hex. The expiry first keeps the ledger's unique
    // index in time order, so a batch's claims write the index's newest leaves, not one
    // random leaf each. A replay repeats the signed `expires`, so it still finds the claim.
    options.onNonce?.({ key: ledgerKey(expiresAt, digest), expiresAt, owner: owner === null ? '' : owner.toString('hex', 0, 16) });
  }
  return { result: 'valid', agentUrl, stale: !directory.fresh };
}
