import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 characters (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let result = '';
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) result += BASE62[byte % 62]!;
      if (result.length === length) break;
    }
  }
  return result;
}

/** Unguessable URL-safe identifier: 22 base62 characters, about 131 bits. */
export function newId(): string {
  return randomBase62(22);
}

export function encodeBase62(value: number, width: number): string {
  let remaining = value;
  let result = '';
  do {
    result = BASE62[remaining % 62]! + result;
    remaining = Math.floor(remaining / 62);
  } while (remaining > 0);
  return result.padStart(width, '0');
}

export const ID_PATTERN = /^[0-9A-Za-z]{22}$/;
