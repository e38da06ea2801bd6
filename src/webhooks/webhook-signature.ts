import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks' secret prefix; what follows is the base64 of the key's bytes. */
const SECRET_PREFIX = 'whsec_';
/** 32 bytes: the spec asks for 24 to 64. */
const SECRET_BYTES = 32;

/** A new endpoint secret, `whsec_` + base64 of 32 random bytes; shown once, stored sealed. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The `webhook-signature` header of Standard Webhooks (https://www.standardwebhooks.com):
 * for each valid secret, `v1,` + base64(HMAC-SHA256(key, "id.timestamp.body")), joined by
 * spaces. During a rotation both the new and the previous secret sign, so receivers that
 * still hold the old one keep verifying. Node's own HMAC, not the reference package: the
 * reference (`standardwebhooks` on npm) verifies these signatures in the tests.
 */
export function signWebhook(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(content).digest('base64')}`).join(' ');
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}
