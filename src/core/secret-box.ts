import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { DocwrightError } from './errors.js';

const VERSION = 'v1';

/**
 * Authenticated encryption (AES-256-GCM) for values that must be stored but never in
 * plaintext, such as forge tokens. The key is derived from the instance secret with
 * HKDF and a purpose label, so one secret can key several independent uses.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(instanceSecret: string, purpose = 'forge-credentials') {
    this.key = Buffer.from(hkdfSync('sha256', instanceSecret, 'docwright', purpose, 32));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !iv || body === undefined || !tag) {
      throw new DocwrightError('secret_unreadable', 'A stored secret has an unknown format.');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new DocwrightError(
        'secret_unreadable',
        'A stored secret cannot be decrypted; was DOCWRIGHT_SECRET changed since it was stored?',
        { cause: error },
      );
    }
  }
}
