import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes as base64url: session secrets and CSRF tokens (256 bits). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The shape newSecretToken produces; anything else is refused before any lookup. */
export const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/**
 * Constant-time equality of two strings of any length: both sides are hashed first, so
 * neither the contents nor the length of the expected value leaks through timing.
 */
export function tokensEqual(presented: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(sha256Hex(presented), 'hex'), Buffer.from(sha256Hex(expected), 'hex'));
}

/** HMAC-SHA-256 of `value` under the instance secret, hex: a keyed hash for rows that must not hold the value itself. */
export function keyedHash(secret: string, purpose: string, value: string): string {
  return createHmac('sha256', secret).update(`${purpose}\n${value}`).digest('hex');
}
