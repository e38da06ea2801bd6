import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { DocwrightError } from './errors.js';

/** Bound to a context (the owning row) through AES-GCM's additional authenticated data. */
const VERSION = 'v2';
/** Written by versions before 2: not bound to anything; readable only to upgrade it. */
const LEGACY_VERSION = 'v1';
/** GCM's full tag. Node accepts shorter ones unless told, and a 4-byte tag is forgeable. */
const TAG_LENGTH = 16;
const IV_LENGTH = 12;

/**
 * Authenticated encryption (AES-256-GCM) for values that must be stored but never in
 * plaintext, such as forge tokens. The key is derived from the instance secret with
 * HKDF and a purpose label, so one secret can key several independent uses.
 *
 * Each value is sealed for a context, the id of the row that owns it, which is
 * authenticated with the ciphertext: a value copied into another row (by someone who can
 * write the database but not read DOCWRIGHT_SECRET) does not open there. Format:
 * `v2.IV.CIPHERTEXT.TAG` in base64url.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(instanceSecret: string, purpose = 'forge-credentials') {
    this.key = Buffer.from(hkdfSync('sha256', instanceSecret, 'docwright', purpose, 32));
  }

  seal(plaintext: string, context: string): string {
    requireContext(context);
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_LENGTH });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** Opens a value sealed for `context`; anything else (another context, v1, a cut tag) is refused. */
  open(sealed: string, context: string): string {
    requireContext(context);
    const parts = parse(sealed);
    if (parts.version === LEGACY_VERSION) {
      throw new DocwrightError(
        'secret_unreadable',
        'A stored secret is in the old v1 format, which is not bound to its project; start Docwright or run `docwright migrate` once to upgrade it.',
      );
    }
    if (parts.version !== VERSION) throw unknownFormat();
    return this.decrypt(
      parts,
      context,
      'A stored secret cannot be decrypted for this project: it was sealed for another one, or DOCWRIGHT_SECRET changed since it was stored.',
    );
  }

  /** True for a value written by versions before 2, which `upgrade` must re-seal. */
  isLegacy(sealed: string): boolean {
    return sealed.startsWith(`${LEGACY_VERSION}.`);
  }

  /**
   * Re-seals a v1 value as v2 bound to `context`. Only the one-time upgrade of stored rows
   * calls this; `open` never reads v1.
   */
  upgrade(sealed: string, context: string): string {
    const parts = parse(sealed);
    if (parts.version !== LEGACY_VERSION) throw unknownFormat();
    return this.seal(this.decrypt(parts, null, 'A stored v1 secret cannot be decrypted; was DOCWRIGHT_SECRET changed since it was stored?'), context);
  }

  private decrypt(parts: SealedParts, context: string | null, failure: string): string {
    if (parts.iv.length !== IV_LENGTH || parts.tag.length !== TAG_LENGTH) throw unknownFormat();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, parts.iv, { authTagLength: TAG_LENGTH });
      if (context !== null) decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(parts.tag);
      return Buffer.concat([decipher.update(parts.body), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new DocwrightError('secret_unreadable', failure, { cause: error });
    }
  }
}

interface SealedParts {
  version: string;
  iv: Buffer;
  body: Buffer;
  tag: Buffer;
}

function parse(sealed: string): SealedParts {
  const fields = sealed.split('.');
  const [version, iv, body, tag] = fields;
  if (fields.length !== 4 || !version || !iv || body === undefined || !tag) throw unknownFormat();
  return { version, iv: Buffer.from(iv, 'base64url'), body: Buffer.from(body, 'base64url'), tag: Buffer.from(tag, 'base64url') };
}

function requireContext(context: string): void {
  // An empty context would bind nothing; no caller should ever mean that.
  if (context.length === 0) throw new Error('SecretBox: a context is required');
}

function unknownFormat(): DocwrightError {
  return new DocwrightError('secret_unreadable', 'A stored secret has an unknown format.');
}
