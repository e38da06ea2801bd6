/**
 * JSON.stringify with its real result type: it answers undefined for undefined, functions and
 * symbols, which its declaration (string) hides, so a fallback after it looks dead to the linter.
 */
export function jsonText(value: unknown): string | undefined {
  return JSON.stringify(value);
}
