import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A forge credential as Docwright versions before the v2 format stored it: AES-256-GCM
 * under the same HKDF key, bound to nothing, `v1.IV.CIPHERTEXT.TAG`. Written here
 * independently of the code under test, the way an old release wrote it.
 */
export function sealLikeV1(instanceSecret: string, plaintext: string): string {
  const key = Buffer.from(hkdfSync('sha256', instanceSecret, 'docwright', 'forge-credentials', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}
