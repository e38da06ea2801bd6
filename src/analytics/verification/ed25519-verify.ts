import { verify, type KeyObject } from 'node:crypto';
import { requireFromPackage } from '../../core/runtime-paths.js';

/** The one libsodium call used; sodium-native ships no type declarations. */
interface SodiumVerify {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

export type Ed25519Backend = 'libsodium' | 'openssl';

/** An Ed25519 signature is always 64 bytes (RFC 8032 §5.1.6). */
const SIGNATURE_BYTES = 64;

/**
 * libsodium through sodium-native (prebuilt binaries inside the npm package), or null where
 * it cannot load (a platform without a prebuild): verification then uses node:crypto.
 */
function loadSodium(): SodiumVerify | null {
  try {
    return requireFromPackage('sodium-native') as SodiumVerify;
  } catch {
    return null;
  }
}

const sodium = loadSodium();

/** Which implementation `verifyEd25519` uses in this process (the benchmark reports it). */
export const ED25519_BACKEND: Ed25519Backend = sodium === null ? 'openssl' : 'libsodium';

/** The raw 32-byte public key of each KeyObject, exported once (the directory cache keeps the object). */
const rawKeys = new WeakMap<KeyObject, Uint8Array>();

function rawKey(key: KeyObject): Uint8Array {
  let raw = rawKeys.get(key);
  if (raw === undefined) {
    const { x } = key.export({ format: 'jwk' });
    raw = new Uint8Array(Buffer.from(x ?? '', 'base64url'));
    rawKeys.set(key, raw);
  }
  return raw;
}

/**
 * Checks an Ed25519 signature. A signed hit's check is most of what verification costs per
 * hit (docs/benchmarks.md, "Agent verification"): libsodium's verify takes ≈ 40 µs of CPU
 * where OpenSSL's one-shot verify in node:crypto takes ≈ 65 µs on the bench machine.
 *
 * The two accept the same signatures from every honest signer. libsodium is stricter on
 * degenerate input no honest signer produces (a small-order or non-canonical public key, a
 * small-order R): such a signature proves nothing about who made it, so refusing it is the
 * safer verdict. Only an exact 64-byte signature is checked: libsodium would otherwise read
 * the first 64 bytes of a longer one, where OpenSSL refuses it.
 */
export function verifyEd25519(message: Uint8Array, key: KeyObject, signature: Uint8Array, backend: Ed25519Backend = ED25519_BACKEND): boolean {
  if (signature.byteLength !== SIGNATURE_BYTES) return false;
  if (backend === 'libsodium' && sodium !== null) {
    const publicKey = rawKey(key);
    // A key of another type (never imported by ed25519-jwk.ts) cannot verify an Ed25519 signature.
    if (publicKey.byteLength !== 32) return false;
    return sodium.crypto_sign_verify_detached(signature, message, publicKey);
  }
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}
