import { createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ED25519_BACKEND, verifyEd25519, type Ed25519Backend } from '../../../src/analytics/verification/ed25519-verify.js';

const BACKENDS: Ed25519Backend[] = ['libsodium', 'openssl'];
const pair = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');

describe('Ed25519 verification (libsodium, node:crypto as the fallback)', () => {
  it('uses libsodium on this platform (sodium-native ships a prebuild for it)', () => {
    expect(ED25519_BACKEND).toBe('libsodium');
  });

  it('agrees with node:crypto on valid, tampered, wrong-key and wrong-length signatures', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 600 }),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom('valid', 'message', 'signature', 'key', 'short', 'long'),
        (message, at, bit, tamper) => {
          const signature = new Uint8Array(sign(null, message, pair.privateKey));
          let checked = message;
          let key = pair.publicKey;
          let sent = signature;
          if (tamper === 'message') {
            checked = message.length === 0 ? new Uint8Array([1]) : message.slice();
            checked[at % checked.length]! ^= 1 << bit;
          } else if (tamper === 'signature') {
            sent = signature.slice();
            sent[at % 64]! ^= 1 << bit;
          } else if (tamper === 'key') key = other.publicKey;
          else if (tamper === 'short') sent = signature.slice(0, 63);
          else if (tamper === 'long') sent = new Uint8Array([...signature, 0]);
          const verdicts = BACKENDS.map((backend) => verifyEd25519(checked, key, sent, backend));
          expect(verdicts).toEqual(BACKENDS.map(() => tamper === 'valid'));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('refuses what only the key holder could forge with a degenerate key, where OpenSSL accepts it', () => {
    // The identity point as a public key, and R = identity, S = 0: OpenSSL's check
    // [S]B = R + [k]A holds for every message. libsodium refuses small-order keys.
    const identity = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from([1, ...new Array<number>(31).fill(0)]).toString('base64url') },
      format: 'jwk',
    });
    const forged = new Uint8Array([1, ...new Array<number>(63).fill(0)]);
    const message = Buffer.from('"@authority": docs.example.com');
    expect(verifyEd25519(message, identity, forged, 'openssl')).toBe(true);
    expect(verifyEd25519(message, identity, forged, 'libsodium')).toBe(false);
  });
});
