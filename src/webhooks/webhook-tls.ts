import { rootCertificates } from 'node:tls';

/**
 * OpenSSL's verification failures and Node's name check: a receiver whose certificate
 * Docwright does not trust, or one issued for another name. Each is the receiver's (or its
 * operator's) to fix, so the attempt says so in its own words rather than as a generic
 * connection failure.
 */
const CERTIFICATE_ERRORS = new Set([
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
  'INVALID_PURPOSE',
]);

/** The message of a failed certificate check, or null for any other error. */
export function certificateFailure(error: Error & { code?: string }, hostname: string): string | null {
  if (error.code === undefined || !CERTIFICATE_ERRORS.has(error.code)) return null;
  const why =
    error.code === 'ERR_TLS_CERT_ALTNAME_INVALID' || error.code === 'HOSTNAME_MISMATCH'
      ? `is not issued for ${hostname}`
      : 'is not trusted (a private CA must be listed in DOCWRIGHT_WEBHOOK_CA_FILE)';
  return `The TLS certificate of ${hostname} ${why}: ${error.code}: ${error.message}`;
}

/**
 * The CAs a webhook connection trusts: undefined leaves Node's default store (the public
 * roots, plus NODE_EXTRA_CA_CERTS); with DOCWRIGHT_WEBHOOK_CA_FILE, the public roots and
 * that file's certificates. Node's `ca` option replaces the store rather than extending it,
 * hence the roots are listed again.
 */
export function webhookTrust(caCertificates: readonly string[] | null): string[] | undefined {
  return caCertificates === null ? undefined : [...rootCertificates, ...caCertificates];
}
