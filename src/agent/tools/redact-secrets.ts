export const REDACTED = '[REDACTED]';

// Shorter values are not credentials, and replacing them would shred ordinary text.
const MINIMUM_SECRET_LENGTH = 4;

/**
 * Builds a function that replaces every occurrence of a known credential in any string
 * of a JSON-like value, keys included. Documentation repositories sometimes contain a
 * pasted token; the model must never see one, whether it came from a file or an error.
 */
export function createRedactor(secrets: readonly string[]): <T>(value: T) => T {
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MINIMUM_SECRET_LENGTH) continue;
    needles.add(secret);
    // Tokens embedded in URLs (clone URLs, query strings) appear percent-encoded.
    needles.add(encodeURIComponent(secret));
  }
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...needles].sort((left, right) => right.length - left.length);
  const redactString = (text: string): string => {
    let result = text;
    for (const needle of ordered) {
      if (result.includes(needle)) result = result.split(needle).join(REDACTED);
    }
    return result;
  };
  const redactValue = (value: unknown): unknown => {
    if (typeof value === 'string') return redactString(value);
    if (Array.isArray(value)) return value.map(redactValue);
    if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(value)) copy[redactString(key)] = redactValue(entry);
      return copy;
    }
    return value;
  };
  return <T>(value: T): T => (ordered.length === 0 ? value : (redactValue(value) as T));
}
