/**
 * Masks credentials in text that is about to leave the process (error messages, logs).
 * Known secrets are replaced verbatim; on top, anything that looks like a credential
 * (userinfo in a URL, an Authorization header, a well-known token prefix) is masked too,
 * because a remote or a server may echo a credential we did not hand out ourselves.
 */
export const REDACTED = '[REDACTED]';

const RULES: ReadonlyArray<{ pattern: RegExp; replacement: string }> = [
  // https://user:password@host → https://user:[REDACTED]@host
  { pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi, replacement: `$1${REDACTED}@` },
  { pattern: /(\bAuthorization:\s*(?:Basic|Bearer|token)\s+)[^\s'"]+/gi, replacement: `$1${REDACTED}` },
  { pattern: /(\bPRIVATE-TOKEN:\s*)[^\s'"]+/gi, replacement: `$1${REDACTED}` },
  {
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})/g,
    replacement: REDACTED,
  },
];

export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let result = text;
  // Longest first, so a secret that contains another one is masked whole.
  const known = [...new Set(secrets.filter((secret) => secret.length >= 4))].sort((a, b) => b.length - a.length);
  for (const secret of known) result = result.split(secret).join(REDACTED);
  for (const { pattern, replacement } of RULES) result = result.replace(pattern, replacement);
  return result;
}
