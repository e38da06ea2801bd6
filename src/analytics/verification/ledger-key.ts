/**
 * Keys of the deployment-wide nonce ledger (nonce-ledger.ts; docs/classification.md,
 * "Replay"). The expiry leads, so keys sort by expiry: claims write the newest end of the
 * key's b-tree, and the expired rows are one range of it.
 */

/** The ledger's key of a nonce: its expiry (seconds, 10 hex digits) and 128 bits of its digest. */
export function ledgerKey(expiresAt: number, digest: Buffer): string {
  return ledgerKeyBound(expiresAt) + digest.toString('hex', 0, 16);
}

/**
 * Below every ledger key expiring at `seconds` or later, above every key expiring earlier:
 * fixed-width lowercase hex compares as its number, and a key is this prefix and more.
 */
export function ledgerKeyBound(seconds: number): string {
  return seconds.toString(16).padStart(10, '0');
}
