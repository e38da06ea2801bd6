import { hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeBase62, randomBase62 } from '../core/ids.js';

export type KeyScope = 'admin' | 'ingest';
export const KEY_SCOPES: readonly KeyScope[] = ['admin', 'ingest'];

const PREFIXES: Record<KeyScope, string> = { admin: 'dw_admin_', ingest: 'dw_ingest_' };
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^dw_(admin|ingest)_([0-9A-Za-z]{30})([0-9A-Za-z]{6})$/;

function checksum(randomPart: string): string {
  return encodeBase62(crc32(randomPart), CHECKSUM_LENGTH);
}

/**
 * `dw_admin_` + 30 base62 characters of randomness (~178 bits) + 6 base62 characters of
 * CRC32 over the random part: a leaked key is recognisable by secret scanners, and a
 * mistyped one is rejected offline, before any database lookup.
 */
export function generateApiKey(scope: KeyScope): string {
  const randomPart = randomBase62(RANDOM_LENGTH);
  return PREFIXES[scope] + randomPart + checksum(randomPart);
}

/** The scope of a well-formed key with a valid checksum, else null. */
export function parseApiKey(key: string): { scope: KeyScope } | null {
  if (key.length !== PREFIXES.ingest.length + RANDOM_LENGTH + CHECKSUM_LENGTH && key.length !== PREFIXES.admin.length + RANDOM_LENGTH + CHECKSUM_LENGTH) {
    return null;
  }
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  if (checksum(match[2]!) !== match[3]) return null;
  return { scope: match[1] as KeyScope };
}

/**
 * Keys carry ~178 bits of randomness, so a fast hash is as safe as a slow one here and
 * keeps authentication cheap on every request (GitHub stores tokens the same way).
 */
export function hashApiKey(key: string): string {
  // The one-shot form: every authenticated request hashes its key, and it skips the Hash object.
  return hash('sha256', key, 'hex');
}

/** What listings show of a key: its prefix and last four characters. */
export function keyHint(key: string): string {
  return `${key.slice(0, key.indexOf('_', 3) + 1)}…${key.slice(-4)}`;
}
