import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

/** An Ed25519 public key as a JWK (RFC 8037). */
export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

export function isEd25519Jwk(value: unknown): value is Ed25519Jwk {
  if (typeof value !== 'object' || value === null) return false;
  const jwk = value as Record<string, unknown>;
  return jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string' && /^[A-Za-z0-9_-]{43}$/.test(jwk.x);
}

/**
 * The key's RFC 7638 thumbprint (SHA-256, base64url): what Web Bot Auth puts in `keyid`.
 * Computed, never taken from the directory's own `kid`, so a directory cannot file a key
 * under another key's id.
 */
export function jwkThumbprint(jwk: Ed25519Jwk): string {
  // Required members only, in lexicographic order, no whitespace (RFC 7638 §3.2).
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${jwk.x}"}`).digest('base64url');
}

export function importEd25519(jwk: Ed25519Jwk): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
}
