import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The share token of a local-forge pull request: whoever has its link may read the page,
 * nobody else can find it. 24 random bytes (192 bits), URL-safe base64 (32 characters).
 */
export function newShareToken(): string {
  return randomBytes(24).toString('base64url');
}

// Every token ever issued is at least this long (32 here, 48 or 64 hex from migration 005);
// a shorter stored value (the column's '' default on SQLite) never opens anything.
const MIN_TOKEN_LENGTH = 32;

/**
 * Constant-time check of a presented token. Both sides are hashed first: timingSafeEqual
 * needs equal lengths, and comparing digests reveals neither the stored token's length nor
 * how much of a guess was right. `stored` is null for an unknown pull request, which then
 * costs the same as a wrong token.
 */
export function shareTokenMatches(stored: string | null, presented: string | undefined): boolean {
  const expected = createHash('sha256')
    .update(stored ?? '')
    .digest();
  const given = createHash('sha256')
    .update(presented ?? '')
    .digest();
  const equal = timingSafeEqual(expected, given);
  return equal && stored !== null && stored.length >= MIN_TOKEN_LENGTH;
}
